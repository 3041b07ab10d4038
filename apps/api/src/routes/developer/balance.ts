import { creditHistoryPageSchema, creditHistoryQuerySchema, organizationBalanceSchema } from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import { getBalance } from '../../domain/credit/get-balance.js';
import { listCreditHistory } from '../../domain/credit/list-credit-history.js';
import { developerKeyOf } from '../../plugins/admin-key-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';
import { developerFailures, developerRoute } from './openapi.js';

/** The organisation's credit over HTTP: the balance as /bff/me states it, and the credit history as the console lists it. */
export function balanceRoutes(app: FastifyZodInstance, { db, secret, payments }: RouteDeps) {
  app.get(
    '/balance',
    {
      schema: {
        ...developerRoute,
        summary: "The organisation's credit",
        description:
          'The balance in dollars (remainingSpendAmount), what a refund or dispute left owed (owedAmount; while above 0 the keys are refused), the promotional part drawn on first and when its soonest grant expires.',
        response: { 200: organizationBalanceSchema, ...developerFailures },
      },
    },
    async (request) => getBalance(db.db, developerKeyOf(request).organizationId),
  );

  app.get(
    '/credit-history',
    {
      schema: {
        ...developerRoute,
        summary: 'The credit history',
        description:
          'Top-ups and auto top-ups with their receipts, grants and their expiries, refunds, disputes and adjustments, newest first unless asc=true; token-paged (pagination.nextPageToken).',
        querystring: creditHistoryQuerySchema,
        response: { 200: creditHistoryPageSchema, ...developerFailures },
      },
    },
    async (request) => listCreditHistory({ db: db.db, secret, payments }, developerKeyOf(request), request.query),
  );
}

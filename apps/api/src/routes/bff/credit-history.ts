import { Readable } from 'node:stream';
import { creditHistoryPageSchema, creditHistoryQuerySchema, rolesAllowedTo } from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import { exportCreditHistory } from '../../domain/credit/export-credit-history.js';
import { listCreditHistory } from '../../domain/credit/list-credit-history.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

/** The list's order, validated the same way; paging does not apply to an export. */
const exportQuerySchema = creditHistoryQuerySchema.pick({ asc: true });

/** Issue #22: the organisation's top-ups, refunds, disputes and adjustments, with receipts; for the roles that manage credit. */
export function creditHistoryRoutes(app: FastifyZodInstance, { db, secret, payments }: RouteDeps) {
  const config = { roles: rolesAllowedTo.manageCredit };
  const deps = { db: db.db, secret, payments };

  app.get('/bff/credit-history', { config, schema: { querystring: creditHistoryQuerySchema, response: { 200: creditHistoryPageSchema } } }, async (request) =>
    listCreditHistory(deps, viewerOf(request), request.query),
  );

  app.get(
    '/bff/credit-history/export',
    // A HEAD would drain the whole export only to throw it away.
    { config, exposeHeadRoute: false, schema: { querystring: exportQuerySchema } },
    async (request, reply) => {
      const { rowCount, chunks } = await exportCreditHistory(deps, viewerOf(request), request.query);
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="credit-history-${day}.csv"`)
        .header('x-total-count', String(rowCount))
        .header('cache-control', 'no-store')
        .send(Readable.from(chunks, { objectMode: false }));
    },
  );
}

import { chatCompletionPageSchema, chatCompletionQuerySchema, usageDailyQuerySchema, usageDailySchema } from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import { listChatCompletions } from '../../domain/usage/list-chat-completions.js';
import { getUsageDaily } from '../../domain/usage/usage-daily.js';
import { developerKeyOf } from '../../plugins/admin-key-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';
import { developerFailures, developerRoute, notFound } from './openapi.js';

/** The organisation's usage over HTTP: the calls as the console lists them, and the daily sums it charts. */
export function usageRoutes(app: FastifyZodInstance, { reads, secret }: RouteDeps) {
  app.get(
    '/usage',
    {
      schema: {
        ...developerRoute,
        summary: 'Metered calls',
        description:
          "Every metered chat completion with its tokens and costs in dollars, newest first unless asc=true; filter by one key with publishableKeyId or secretKeyId (not both). Token-paged: pass pagination.nextPageToken as nextPageToken, with the same filters. Another organisation's key id matches nothing.",
        querystring: chatCompletionQuerySchema,
        response: { 200: chatCompletionPageSchema, ...developerFailures },
      },
    },
    async (request) => reads((db) => listChatCompletions({ db, secret }, developerKeyOf(request), request.query)),
  );

  app.get(
    '/usage/daily',
    {
      schema: {
        ...developerRoute,
        summary: 'Spend per day',
        description:
          'Spend per UTC day over the last `days` days (30 by default, at most 90, today last), by model and by key, with the totals and the month-to-date spend; publishableKeyId narrows it to one key of the organisation.',
        querystring: usageDailyQuerySchema,
        response: { 200: usageDailySchema, ...developerFailures, ...notFound },
      },
    },
    async (request) => reads((db) => getUsageDaily(db, developerKeyOf(request), request.query, new Date())),
  );
}

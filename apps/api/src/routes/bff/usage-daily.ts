import { rolesAllowedTo, usageDailyQuerySchema, usageDailySchema } from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import { getUsageDaily } from '../../domain/usage/usage-daily.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

export function usageDailyRoutes(app: FastifyZodInstance, { reads }: RouteDeps) {
  app.get(
    '/bff/usage/daily',
    { config: { roles: rolesAllowedTo.seeOrganization }, schema: { querystring: usageDailyQuerySchema, response: { 200: usageDailySchema } } },
    async (request) => reads((db) => getUsageDaily(db, viewerOf(request), request.query, new Date())),
  );
}

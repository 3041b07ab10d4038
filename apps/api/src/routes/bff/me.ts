import { meSchema, rolesAllowedTo } from '@meterway/contracts';
import type { FastifyZodInstance } from '../../plugins/zod.js';
import { getMe } from '../../domain/people/get-me.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { RouteDeps } from '../../deps.js';

export function meRoutes(app: FastifyZodInstance, { db }: RouteDeps) {
  app.get('/bff/me', { config: { roles: rolesAllowedTo.seeOrganization }, schema: { response: { 200: meSchema } } }, async (request) =>
    getMe(db.db, viewerOf(request)),
  );
}

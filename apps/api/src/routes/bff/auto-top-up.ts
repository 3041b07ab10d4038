import { autoTopUpInputSchema, autoTopUpSchema, checkoutSessionResponseSchema, rolesAllowedTo } from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import { getAutoTopUp, saveAutoTopUp } from '../../domain/auto-top-up/auto-top-up-settings.js';
import { startCardSetup } from '../../domain/auto-top-up/start-card-setup.js';
import { mutationRateLimit } from '../../plugins/rate-limit.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

export function autoTopUpRoutes(app: FastifyZodInstance, { db, config, payments }: RouteDeps) {
  app.get('/bff/auto-top-up', { config: { roles: rolesAllowedTo.seeOrganization }, schema: { response: { 200: autoTopUpSchema } } }, async (request) =>
    getAutoTopUp(db.db, viewerOf(request), new Date()),
  );

  app.put(
    '/bff/auto-top-up',
    { config: { ...mutationRateLimit, roles: rolesAllowedTo.manageCredit }, schema: { body: autoTopUpInputSchema, response: { 200: autoTopUpSchema } } },
    async (request) => saveAutoTopUp(db.db, viewerOf(request), request.body, new Date()),
  );

  app.post(
    '/bff/auto-top-up/payment-method',
    { config: { ...mutationRateLimit, roles: rolesAllowedTo.manageCredit }, schema: { response: { 200: checkoutSessionResponseSchema } } },
    async (request) => startCardSetup(db.db, payments, viewerOf(request), { consoleUrl: config.consoleUrl }),
  );
}

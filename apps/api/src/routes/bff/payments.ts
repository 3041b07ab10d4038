import {
  checkoutOutcomeSchema,
  checkoutSessionRequestSchema,
  checkoutSessionResponseSchema,
  customerPortalResponseSchema,
  rolesAllowedTo,
} from '@meterway/contracts';
import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import { checkoutOutcome } from '../../domain/payments/checkout-sessions.js';
import { startCheckout } from '../../domain/payments/start-checkout.js';
import { mutationRateLimit } from '../../plugins/rate-limit.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

export function paymentRoutes(app: FastifyZodInstance, { db, config, payments }: RouteDeps) {
  app.post(
    '/bff/stripe/checkout-session',
    {
      config: { ...mutationRateLimit, roles: rolesAllowedTo.manageCredit },
      schema: { body: checkoutSessionRequestSchema, response: { 200: checkoutSessionResponseSchema } },
    },
    async (request) => startCheckout(db.db, payments, viewerOf(request), { amount: request.body.amount, consoleUrl: config.consoleUrl }),
  );

  app.get(
    '/bff/checkout-sessions/:checkoutSessionId',
    {
      config: { roles: rolesAllowedTo.manageCredit },
      schema: { params: z.object({ checkoutSessionId: z.string().max(200) }), response: { 200: checkoutOutcomeSchema } },
    },
    async (request) => checkoutOutcome(db.db, { organizationId: viewerOf(request).organizationId, id: request.params.checkoutSessionId }),
  );

  app.post(
    '/bff/stripe/customer-portal-session',
    { config: { ...mutationRateLimit, roles: rolesAllowedTo.manageCredit }, schema: { response: { 200: customerPortalResponseSchema } } },
    async (request) => {
      const viewer = viewerOf(request);
      const url = await payments.createPortalUrl({
        organizationId: viewer.organizationId,
        organizationName: viewer.organizationName,
        personId: viewer.personId,
        email: viewer.email,
        returnUrl: `${config.consoleUrl}/dashboard`,
      });
      return { url };
    },
  );
}

import { paymentConfigSchema } from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

/** GET /bff/config (public): which payment provider is active and, for Stripe, its publishable key. */
export function configRoutes(app: FastifyZodInstance, { payments, config }: RouteDeps) {
  app.get('/bff/config', { schema: { response: { 200: paymentConfigSchema } } }, async () => {
    const { provider, stripePublishableKey } = payments.publicConfig();
    return {
      paymentProvider: provider,
      ...(stripePublishableKey ? { stripePublishableKey } : {}),
      ...(provider === 'sandbox' && config.production ? { testModeEverywhere: true } : {}),
    };
  });
}

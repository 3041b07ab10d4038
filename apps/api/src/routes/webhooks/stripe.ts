import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import { AppError } from '../../errors/app-error.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

/** Stripe only reads the status; the body is the usual acknowledgement (not a console shape, so not in contracts). */
const acknowledgement = z.object({ received: z.literal(true) });

/**
 * POST /webhooks/stripe: Stripe's payment notifications. No session or key: the signature over the
 * raw body is the only credential, so this lives in its own plugin whose JSON parser keeps the
 * exact bytes (a parsed and re-serialised body would never verify) without changing anyone else's.
 */
export async function stripeWebhookRoutes(app: FastifyZodInstance, { payments }: RouteDeps) {
  const receiveWebhook = payments.receiveWebhook;
  if (!receiveWebhook) throw new Error('The stripe payment provider must receive webhooks.');
  await app.register(async (webhooks: FastifyZodInstance) => {
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    webhooks.post('/webhooks/stripe', { schema: { hide: true, response: { 200: acknowledgement } } }, async (request) => {
      if (!Buffer.isBuffer(request.body)) throw new AppError('BadRequest', 'Expected a JSON body.');
      const signature = request.headers['stripe-signature'];
      const receipt = await receiveWebhook({ rawBody: request.body, signature: typeof signature === 'string' ? signature : undefined, now: new Date() });
      request.log.info({ stripeEvent: receipt.eventId, stripeEventType: receipt.type, outcome: receipt.outcome }, 'stripe webhook');
      return { received: true as const };
    });
  });
}

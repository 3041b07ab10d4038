import { sandboxCheckoutSchema, sandboxConfirmSchema } from '@meterway/contracts';
import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import { confirmSandboxCheckout, sandboxSession, sandboxSummary, settleSandbox } from '../../domain/payments/sandbox-checkout.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

const params = z.object({ checkoutSessionId: z.string().max(200) });

/**
 * The sandbox's checkout API for the console's test-mode form. The client secret (handed to the
 * browser that started the top-up) is the credential, as with Stripe's client secret.
 */
export function sandboxCheckoutRoutes(app: FastifyZodInstance, { db }: RouteDeps, settleSoon: () => void) {
  app.get(
    '/sandbox/checkout-sessions/:checkoutSessionId',
    { schema: { params, querystring: z.object({ client_secret: z.string().max(200) }), response: { 200: sandboxCheckoutSchema } } },
    async (request) => sandboxSummary(await sandboxSession(db.db, request.params.checkoutSessionId, request.query.client_secret)),
  );

  app.post(
    '/sandbox/checkout-sessions/:checkoutSessionId/confirm',
    {
      config: { rateLimit: { max: 20, timeWindow: '1 minute' } },
      schema: { params, body: sandboxConfirmSchema, response: { 202: z.object({ status: z.literal('processing') }) } },
    },
    async (request, reply) => {
      await confirmSandboxCheckout(db.db, { id: request.params.checkoutSessionId, ...request.body, now: new Date() });
      settleSoon();
      return reply.code(202).send({ status: 'processing' });
    },
  );
}

/** Applies sandbox outcomes shortly after a confirm, and sweeps every few seconds (crash-safe). */
export function sandboxSettler(db: RouteDeps['db'], log: { error: (obj: unknown, msg: string) => void }) {
  const settle = () => settleSandbox(db.db, new Date()).catch((error: unknown) => log.error({ err: error }, 'sandbox settlement failed'));
  const sweeper = setInterval(settle, 5_000);
  const timers = new Set<NodeJS.Timeout>();
  return {
    settleSoon: () => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        void settle();
      }, 250);
      timers.add(timer);
    },
    stop: () => {
      clearInterval(sweeper);
      for (const timer of timers) clearTimeout(timer);
    },
  };
}

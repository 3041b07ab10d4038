import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import { deliverWebhooks } from '../domain/webhooks/deliver-webhooks.js';
import { createWebhookSender } from '../domain/webhooks/webhook-sender.js';
import { repeatRounds } from './rounds.js';

/**
 * The webhook delivery worker: every instance, every few seconds, sends the due deliveries (each
 * claimed by one instance) through its own connection pool, closed with the app after the last round.
 */
export function registerWebhooks(fastify: FastifyInstance, deps: AppDeps) {
  const { config, db } = deps;
  const sender = createWebhookSender({ production: config.production });
  fastify.addHook('onClose', () => sender.close());
  repeatRounds(fastify, {
    everyMs: config.webhooks.intervalMs,
    failure: 'the webhook delivery round failed',
    afterRound: deps.onWebhookRound,
    round: async () => {
      await deliverWebhooks({ db: db.db, sender }, new Date());
    },
  });
}

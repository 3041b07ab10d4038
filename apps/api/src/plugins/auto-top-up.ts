import type { Mailer } from '@meterway/service';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import { processCharges } from '../domain/auto-top-up/process-charges.js';
import type { PaymentProvider } from '../domain/payments/payment-provider.js';
import { repeatRounds } from './rounds.js';

/**
 * The auto top-up worker: every instance, every few seconds, claims the charges due, sends the
 * open ones to the payment provider and mails the failures (each charge is taken by one instance).
 */
export function registerAutoTopUp(fastify: FastifyInstance, deps: AppDeps, services: { mailer: Mailer; payments: PaymentProvider }) {
  const { config, db } = deps;
  const workerDeps = { db: db.db, ...services, consoleUrl: config.consoleUrl };
  repeatRounds(fastify, {
    everyMs: config.autoTopUp.intervalMs,
    failure: 'the auto top-up round failed',
    afterRound: deps.onAutoTopUpRound,
    round: async () => {
      const { errors } = await processCharges(workerDeps, new Date());
      for (const error of errors) fastify.log.error({ err: error }, 'an auto top-up charge or its mail failed; it is tried again later');
    },
  });
}

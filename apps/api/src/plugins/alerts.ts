import type { Mailer } from '@meterway/service';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import { checkAlerts } from '../domain/alerts/check-alerts.js';
import { repeatRounds } from './rounds.js';

// A balance row is stamped when its transaction starts: look back past the longest plausible one.
const lookBackMs = 60_000;

/**
 * Balance and budget alerts by e-mail: every instance checks every few seconds (only what
 * changed since its last round, plus due retries), and mails through the app's transport (plugins/mail.ts).
 */
export function registerAlerts(fastify: FastifyInstance, deps: AppDeps, mailer: Mailer) {
  const { config, db } = deps;

  let since = new Date(0);
  repeatRounds(fastify, {
    everyMs: config.alerts.checkIntervalMs,
    failure: 'checking alerts failed',
    afterRound: deps.onAlertRound,
    round: async () => {
      const startedAt = new Date();
      const { failed } = await checkAlerts({ db: db.db, mailer, consoleUrl: config.consoleUrl }, startedAt, since);
      since = new Date(startedAt.getTime() - lookBackMs);
      if (failed > 0) fastify.log.warn({ failed }, 'alert mails failed; they are retried later');
    },
  });
}

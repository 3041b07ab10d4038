import { devOutbox, devOutboxRoutes, type Mailer, smtpMailer } from '@meterway/service';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';

/**
 * The app's one mail transport, for alerts and invitations: the test's mailer, SMTP_URL, or without
 * it the dev outbox, which GET /dev/outbox shows outside production.
 */
export function createMailer(fastify: FastifyInstance, deps: AppDeps): Mailer {
  const { config } = deps;
  const outbox = deps.mailer || config.mail.smtpUrl ? undefined : devOutbox(fastify.log);
  if (outbox && !config.production) devOutboxRoutes(fastify, outbox);
  return deps.mailer ?? outbox ?? smtpMailer(config.mail.smtpUrl ?? '', config.mail.from);
}

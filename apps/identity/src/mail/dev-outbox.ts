import type { FastifyBaseLogger } from 'fastify';
import type { Mail, Mailer } from './mailer.js';

/**
 * Without SMTP_URL, mail goes here: each message is logged with its code or link (so a developer
 * running `npm start` can read it) and the last ones are kept for GET /dev/outbox. Never used in
 * production: the environment check refuses production without SMTP_URL.
 */
export function devOutbox(log: FastifyBaseLogger, keep = 200): Mailer & { messages: () => Mail[] } {
  const sent: Mail[] = [];
  return {
    send: async (mail) => {
      sent.push(mail);
      if (sent.length > keep) sent.shift();
      log.info({ to: mail.to, subject: mail.subject, ...(mail.code ? { code: mail.code } : {}), ...(mail.link ? { link: mail.link } : {}) }, 'dev outbox: mail');
    },
    messages: () => [...sent],
  };
}

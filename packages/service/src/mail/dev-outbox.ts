import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Mail, Mailer } from './mail.js';

export type DevOutbox = Mailer & { messages: () => Mail[] };

/**
 * Without SMTP_URL, mail goes here: each message is logged with its code or link (so a developer
 * running `npm start` can read it) and the last ones are kept for GET /dev/outbox. Never used in
 * production: each service's environment check refuses production without SMTP_URL.
 */
export function devOutbox(log: FastifyBaseLogger, keep = 200): DevOutbox {
  const sent: Mail[] = [];
  return {
    send: async (mail) => {
      sent.push(mail);
      if (sent.length > keep) sent.shift();
      log.info(
        { to: mail.to, subject: mail.subject, ...(mail.code ? { code: mail.code } : {}), ...(mail.link ? { link: mail.link } : {}) },
        'dev outbox: mail',
      );
    },
    messages: () => [...sent],
  };
}

/** GET /dev/outbox?to=: the mail the dev outbox kept, newest last. Only without SMTP and outside production. */
export function devOutboxRoutes(app: FastifyInstance, outbox: { messages: () => Mail[] }) {
  app.get<{ Querystring: { to?: string } }>('/dev/outbox', async (request) => {
    // A repeated ?to= arrives as an array: only a single address filters.
    const to = typeof request.query.to === 'string' ? request.query.to.toLowerCase() : undefined;
    return { messages: outbox.messages().filter((mail) => !to || mail.to === to) };
  });
}

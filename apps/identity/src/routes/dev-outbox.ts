import type { FastifyInstance } from 'fastify';
import type { Mail } from '../mail/mailer.js';

/** GET /dev/outbox?to=: the mail the dev outbox kept, newest last. Only without SMTP and outside production. */
export function devOutboxRoutes(app: FastifyInstance, outbox: { messages: () => Mail[] }) {
  app.get<{ Querystring: { to?: string } }>('/dev/outbox', async (request) => {
    // A repeated ?to= arrives as an array: only a single address filters.
    const to = typeof request.query.to === 'string' ? request.query.to.toLowerCase() : undefined;
    return { messages: outbox.messages().filter((mail) => !to || mail.to === to) };
  });
}

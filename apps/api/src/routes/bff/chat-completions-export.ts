import { Readable } from 'node:stream';
import { chatCompletionExportQuerySchema, rolesAllowedTo } from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import { exportChatCompletions } from '../../domain/usage/export-chat-completions.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

export function chatCompletionExportRoutes(app: FastifyZodInstance, { reads, secret }: RouteDeps) {
  app.get(
    '/bff/chat-completions/export',
    // A HEAD would drain the whole export only to throw it away.
    { exposeHeadRoute: false, config: { roles: rolesAllowedTo.seeOrganization }, schema: { querystring: chatCompletionExportQuerySchema } },
    async (request, reply) => {
      const { rowCount, chunks } = await reads((db) => exportChatCompletions({ db, secret }, viewerOf(request), request.query));
      const day = new Date().toISOString().slice(0, 10);
      // Fastify pipes the stream with backpressure and destroys it when the client goes away,
      // which ends the generator, and with it the reading.
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="chat-completions-${day}.csv"`)
        .header('x-total-count', String(rowCount))
        .header('cache-control', 'no-store')
        .send(Readable.from(chunks, { objectMode: false }));
    },
  );
}

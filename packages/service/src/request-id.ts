import type { FastifyInstance } from 'fastify';

/** Answers every request with its id, so a user's report can be matched to the log lines. */
export function echoRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
}

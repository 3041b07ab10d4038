import type { FastifyInstance } from 'fastify';

/** Answers every request with its id, so a user's report can be matched to the log lines. */
export function echoRequestId(app: FastifyInstance): void {
  // A callback hook, not an async one: no promise and no turn of the microtask queue per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
}

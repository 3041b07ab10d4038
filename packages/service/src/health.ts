import type { FastifyInstance } from 'fastify';

/**
 * `GET /healthz`: 200 `{"status":"ok"}` only when the database answers; 503 otherwise, so a load
 * balancer takes the instance out of rotation.
 */
export function registerHealth(app: FastifyInstance, ping: () => Promise<void>): void {
  app.get('/healthz', async (request, reply) => {
    try {
      await ping();
      return { status: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'health check: the database does not answer');
      return reply
        .code(503)
        .type('application/problem+json')
        .send({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'The database does not answer.' });
    }
  });
}

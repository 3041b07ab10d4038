import type { FastifyInstance } from 'fastify';

/**
 * Kratos' health endpoints, which orchestrators and Ory's tooling probe: `/health/alive` answers
 * while the process serves HTTP; `/health/ready` also asks the database, and names it in `errors`
 * (503) when it does not answer.
 */
export function kratosHealthRoutes(app: FastifyInstance, ping: () => Promise<void>): void {
  app.get('/health/alive', async () => ({ status: 'ok' }));
  app.get('/health/ready', async (request, reply) => {
    try {
      await ping();
      return { status: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check: the database does not answer');
      return reply.code(503).send({ errors: { database: 'The database does not answer.' } });
    }
  });
}

import { echoRequestId, fastifyOptions, registerHealth } from '@meterway/service';
import Fastify, { type FastifyInstance } from 'fastify';
import type { IdentityDb } from './db/index.js';
import type { IdentityConfig } from './env.js';

export type AppDeps = { config: IdentityConfig; db: IdentityDb };

/** The identity service as a Fastify plugin; server.ts and the tests both build it with createApp. */
export async function app(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  echoRequestId(fastify);
  registerHealth(fastify, db.ping);
  // Kratos answers unknown routes in its own error envelope, so SDK clients can read the reason.
  fastify.setNotFoundHandler((_request, reply) =>
    reply.code(404).send({ error: { code: 404, status: 'Not Found', message: 'The requested resource could not be found' } }),
  );
}

export async function createApp(deps: AppDeps): Promise<FastifyInstance> {
  const fastify = Fastify(fastifyOptions(deps.config.logLevel));
  await fastify.register(app, deps);
  return fastify;
}

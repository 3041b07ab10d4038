import { echoRequestId, fastifyOptions, registerHealth } from '@meterway/service';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ApiDb } from './db/index.js';
import type { ApiConfig } from './env.js';
import { registerProblemJson } from './plugins/problem-json.js';

export type AppDeps = { config: ApiConfig; db: ApiDb };

/** The whole api as a Fastify plugin; server.ts and the tests both build it with createApp. */
export async function app(fastify: FastifyInstance, { db }: AppDeps): Promise<void> {
  echoRequestId(fastify);
  registerProblemJson(fastify);
  registerHealth(fastify, db.ping);
}

export async function createApp(deps: AppDeps): Promise<FastifyInstance> {
  const fastify = Fastify(fastifyOptions(deps.config.logLevel));
  await fastify.register(app, deps);
  return fastify;
}

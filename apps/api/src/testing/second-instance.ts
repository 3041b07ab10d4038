import type { AddressInfo } from 'node:net';
import { createDb, type Database } from '@meterway/db';
import type { TestDbHandle } from '@meterway/db/testing';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../app.js';
import { type ApiDb, schema } from '../db/index.js';
import { loadApiConfig } from '../env.js';
import type { ModelProvider } from '../gateway/providers/model-provider.js';

export type SecondInstance = { app: FastifyInstance; db: Database; url: string; close: () => Promise<void> };

/**
 * A second api instance on the same database as a test's first: its own connection pool on
 * Postgres (as in production), the same PGlite otherwise.
 */
export async function startSecondInstance(handle: TestDbHandle<typeof schema>, env: NodeJS.ProcessEnv, models: ModelProvider): Promise<SecondInstance> {
  const databaseUrl = handle.databaseUrl;
  const db: ApiDb = databaseUrl ? await createDb({ schema, databaseUrl, dataDir: '', service: 'api' }) : handle;
  const app = await createApp({ config: loadApiConfig({ LOG_LEVEL: 'silent', ...env }), db, models });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const close = async () => {
    await app.close();
    if (databaseUrl) await db.close();
  };
  return { app, db: db.db, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close };
}

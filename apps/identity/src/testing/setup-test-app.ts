import { setupTestDb } from '@meterway/db/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { createApp } from '../app.js';
import { migrations, schema } from '../db/index.js';
import { loadIdentityConfig } from '../env.js';

/** The api built as production builds it, on this test file's own fresh database. */
export function setupTestApp(env: NodeJS.ProcessEnv = {}) {
  const testDb = setupTestDb({ schema, migrations });
  let app: FastifyInstance | undefined;
  beforeAll(async () => {
    app = await createApp({ config: loadIdentityConfig({ LOG_LEVEL: 'silent', ...env }), db: testDb.handle });
  });
  afterAll(async () => {
    await app?.close();
  });
  return {
    get app() {
      if (!app) throw new Error('The test app is built in beforeAll.');
      return app;
    },
    testDb,
  };
}

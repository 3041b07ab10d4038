import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createDb, type DbHandle } from '@meterway/db';
import { setupTestDb } from '@meterway/db/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { createApp } from '../app.js';
import { migrations, schema } from '../db/index.js';
import { organizations, publishableKeys } from '../db/schema/index.js';
import { postEntry } from '../domain/credit/ledger.js';
import { newKeyValue } from '../domain/keys/key-value.js';
import { dollarsToNanos } from '../domain/money.js';
import { loadApiConfig } from '../env.js';
import type { ModelProvider } from '../gateway/providers/model-provider.js';

/**
 * The api listening on a real socket (the openai SDK needs a URL), on this file's own database,
 * with the model provider the test chooses; `account()` makes an organisation with credit and a key;
 * `settled()` waits for the settlements of the answers the gateway has sent (they follow the answer)
 * and for its stocks of spare holds to be given back (they would be after a second idle).
 */
/** The database as one instance leaves it at rest: every answer settled, no spare hold kept. */
export const atRest = (app: FastifyInstance): Promise<void> => app.meter.atRest();

/**
 * Without `models`, the app makes its provider from the environment, as production does
 * (UPSTREAM_BASE_URL, read in beforeAll). With `connectThrough` (Postgres only), the app reaches
 * the file's database at the URL it makes of the direct one (a pooler in front), and migrates it
 * there as it does at boot; the tests' own reads and writes stay direct.
 */
export function setupGateway(models: (() => ModelProvider) | undefined, env: NodeJS.ProcessEnv = {}, connectThrough?: (databaseUrl: string) => string) {
  const testDb = setupTestDb({ schema, migrations });
  let app: FastifyInstance | undefined;
  let url = '';
  let pooled: DbHandle<typeof schema> | undefined;
  beforeAll(async () => {
    if (connectThrough) {
      pooled = await createDb({ schema, service: 'api', dataDir: '', databaseUrl: connectThrough(testDb.handle.databaseUrl!) });
      await pooled.migrate(migrations);
    }
    const db = pooled ?? testDb.handle;
    app = await createApp({ config: loadApiConfig({ LOG_LEVEL: 'silent', ...env }), db, ...(models ? { models: models() } : {}) });
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await pooled?.close();
  });

  type Controls = Pick<
    typeof publishableKeys.$inferInsert,
    | 'allowedModels'
    | 'maxOutputTokensPerCall'
    | 'clientRequestsPerMinute'
    | 'clientSpendPerDayNanos'
    | 'endUserRequestsPerMinute'
    | 'endUserSpendPerDayNanos'
    | 'endUserSpendPerMonthNanos'
    | 'endUserTokens'
    | 'responseCacheSeconds'
    | 'responseCacheShared'
  >;
  async function account(options: { creditDollars: number; budgetDollars: number; origins?: string[]; controls?: Controls }) {
    const organizationId = randomUUID();
    await testDb.db.insert(organizations).values({ id: organizationId, name: 'Gateway test' });
    if (options.creditDollars > 0) {
      await testDb.db.transaction((tx) =>
        postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollarsToNanos(options.creditDollars), reference: `cs_${randomUUID()}` }),
      );
    }
    const keyId = randomUUID();
    const value = newKeyValue();
    await testDb.db.insert(publishableKeys).values({
      id: keyId,
      organizationId,
      name: 'Test key',
      value,
      spendLimitNanos: dollarsToNanos(options.budgetDollars),
      allowedOrigins: options.origins ?? ['https://app.example.com'],
      ...options.controls,
    });
    return { organizationId, keyId, value };
  }

  return {
    testDb,
    get url() {
      return url;
    },
    account,
    settled: () => atRest(app!),
    get app() {
      return app!;
    },
  };
}

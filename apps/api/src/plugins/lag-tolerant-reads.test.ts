import { randomUUID } from 'node:crypto';
import { createTestDb } from '@meterway/db/testing';
import { sampleValue } from '@meterway/service/read-metrics';
import pg from 'pg';
import { fromPool } from '@meterway/db';
import { afterAll, describe, expect, it } from 'vitest';
import { organizations } from '../db/schema/index.js';
import { postEntry } from '../domain/credit/ledger.js';
import { systemActor } from '../domain/audit/record-audit.js';
import { createKey } from '../domain/keys/publishable-keys.js';
import { loadSecretKeyHasher } from '../domain/keys/secret-key-hash.js';
import { secretKeys } from '../domain/keys/secret-keys.js';
import { dollarsToNanos } from '../domain/money.js';
import { atRest } from '../testing/gateway-fixture.js';
import { setupTestApp } from '../testing/setup-test-app.js';
import { type ApiDb, migrations, schema } from '../db/index.js';

// Issue #25: with DATABASE_REPLICA_URL, the reads that may lag (usage list, chart, CSV, admin lists)
// go to the replica and the money stays on the primary. The "replica" here is a database of its own
// that has not caught up with the primary at all, so whichever answers shows which was read.

/** An organisation on the primary with $20 of credit, an admin key, and one metered call. */
async function organisationWithOneCall(t: ReturnType<typeof setupTestApp>) {
  const db = t.testDb.db;
  const organizationId = randomUUID();
  await db.insert(organizations).values({ id: organizationId, name: 'Replica reads' });
  await db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollarsToNanos(20), reference: `cs_${randomUUID()}` }));
  const acting = { ...systemActor, organizationId };
  const keys = secretKeys(db, await loadSecretKeyHasher(db, undefined));
  const admin = await keys.create(acting, { name: 'admin', budget: 50, budgetType: 'monthly', scope: 'admin' }, new Date());
  const publishable = await createKey(
    db,
    acting,
    { name: 'Storefront', budget: 10, budgetType: 'monthly', allowedOrigins: ['https://shop.example.com'] },
    new Date(),
  );
  const call = await t.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${publishable.value}`, origin: 'https://shop.example.com' },
    payload: { model: 'meterway-demo', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 5 },
  });
  expect(call.statusCode).toBe(200);
  await atRest(t.app);
  const get = async (url: string) => (await t.app.inject({ url, headers: { authorization: `Bearer ${admin.value}` } })).json();
  return { get };
}

const replicas: ApiDb[] = [];
afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.close()));
});

describe('with a read replica', () => {
  const t = setupTestApp(
    {},
    {
      replica: async () => {
        const behind = await createTestDb({ schema, migrations });
        replicas.push(behind);
        return behind;
      },
    },
  );

  it('lists usage and charts it from the replica, with what it has so far, while the balance is the primary’s', async () => {
    const { get } = await organisationWithOneCall(t);
    expect((await get('/v1/organization/usage')).items).toEqual([]);
    expect((await get('/v1/organization/usage/daily')).totals.calls).toBe(0);
    const { remainingSpendAmount } = await get('/v1/organization/balance');
    expect(remainingSpendAmount).toBeLessThan(20);
    expect(remainingSpendAmount).toBeGreaterThan(19);
  });
});

describe('with a read replica that cannot be reached', () => {
  const t = setupTestApp(
    {},
    {
      // Nothing listens on port 9 (discard): every connection is refused.
      replica: async () => {
        const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:9/postgres' });
        pool.on('error', () => {});
        const unreachable = fromPool(pool, schema);
        replicas.push(unreachable);
        return unreachable;
      },
    },
  );

  it('reads from the primary instead, and counts each such read', async () => {
    const { get } = await organisationWithOneCall(t);
    expect((await get('/v1/organization/usage')).items).toHaveLength(1);
    expect((await get('/v1/organization/usage/daily')).totals.calls).toBe(1);
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    expect(sampleValue(metrics, 'meterway_api_replica_fallbacks_total')).toBe(2);
  });
});

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

/** An organisation on the primary (a new one, or a signed-up member's) with $20 of credit, an admin key, and one metered call. */
async function organisationWithOneCall(t: ReturnType<typeof setupTestApp>, existing?: string) {
  const db = t.testDb.db;
  const organizationId = existing ?? randomUUID();
  if (!existing) await db.insert(organizations).values({ id: organizationId, name: 'Replica reads' });
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

describe('the console and the admin lists with a read replica', () => {
  const adminEmail = `replica-admin-${Date.now()}@example.com`;
  const t = setupTestApp(
    { SYSTEM_ADMIN_EMAILS: adminEmail },
    {
      identity: true,
      replica: async () => {
        const behind = await createTestDb({ schema, migrations });
        replicas.push(behind);
        return behind;
      },
    },
  );

  it('lists, charts and exports usage and lists persons and feedback from the replica; the viewer and the balance come from the primary', async () => {
    const member = await t.signUpMember({ email: adminEmail });
    await organisationWithOneCall(t, member.organizationId);
    const get = (url: string) => t.app.inject({ url, headers: { cookie: member.cookie } });

    expect((await get('/bff/chat-completions')).json().items).toEqual([]);
    expect((await get('/bff/usage/daily')).json().totals.calls).toBe(0);
    const csv = await get('/bff/chat-completions/export');
    expect(csv.headers['x-total-count']).toBe('0');
    expect((await get('/admin/persons')).json().items).toEqual([]);
    expect((await get('/admin/feedback')).json().items).toEqual([]);
    const me = (await get('/bff/me')).json();
    expect(me.remainingSpendAmount).toBeLessThan(20);
    expect(me.remainingSpendAmount).toBeGreaterThan(19);
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

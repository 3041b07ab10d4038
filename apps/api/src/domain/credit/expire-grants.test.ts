import { randomUUID } from 'node:crypto';
import { createDb } from '@meterway/db';
import { setupTestDb } from '@meterway/db/testing';
import { and, eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { auditEntries, creditBalances, creditEntries, creditGrants, organizations } from '../../db/schema/index.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { lockRows } from '../../testing/row-lock.js';
import { systemActor } from '../audit/record-audit.js';
import { expireGrants } from './expire-grants.js';
import { postPromotionalGrant } from './grant-credit.js';
import { creditOf, postEntry } from './ledger.js';

const testDb = setupTestDb({ schema, migrations });
afterEach(async () => expectLedgerConsistent(testDb.db));

const dollars = (amount: number) => BigInt(Math.round(amount * 1e9));
const now = new Date('2030-06-01T12:00:00.000Z');
const expiresAt = new Date('2030-07-01T00:00:00.000Z');

/** An organisation with paid credit and one grant expiring at `expiresAt`. */
async function organizationWithGrant(paid: number, granted: number) {
  const organizationId = randomUUID();
  await testDb.db.insert(organizations).values({ id: organizationId, name: 'Expiry test' });
  if (paid > 0) await testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollars(paid), reference: randomUUID() }));
  const grant = await postPromotionalGrant(testDb.db, { organizationId, amountNanos: dollars(granted), note: 'trial', expiresAt, actor: systemActor }, now);
  return { organizationId, grantId: grant.id };
}

const expiries = (organizationId: string) =>
  testDb.db
    .select()
    .from(creditEntries)
    .where(and(eq(creditEntries.organizationId, organizationId), eq(creditEntries.kind, 'grant_expiry')));

const remainingOf = async (grantId: string) =>
  (await testDb.db.select({ remaining: creditGrants.remainingNanos }).from(creditGrants).where(eq(creditGrants.id, grantId)))[0]?.remaining;

describe('expireGrants', () => {
  it('takes a grant out of the balance at its expiry and not a millisecond before, leaving the paid credit', async () => {
    const { organizationId, grantId } = await organizationWithGrant(10, 5);
    expect(await expireGrants(testDb.db, new Date(expiresAt.getTime() - 1))).toEqual({ expired: 0 });
    expect(await creditOf(testDb.db, organizationId)).toEqual({ balanceNanos: dollars(15), owedNanos: 0n, promotionalNanos: dollars(5) });

    expect(await expireGrants(testDb.db, expiresAt)).toEqual({ expired: 1 });
    expect(await creditOf(testDb.db, organizationId)).toEqual({ balanceNanos: dollars(10), owedNanos: 0n, promotionalNanos: 0n });
    expect((await expiries(organizationId)).map((entry) => [entry.amountNanos, entry.balanceAfterNanos, entry.reference])).toEqual([
      [-dollars(5), dollars(10), `${grantId}:${dollars(5)}`],
    ]);
    expect(await remainingOf(grantId)).toBe(0n);
    const audit = await testDb.db
      .select()
      .from(auditEntries)
      .where(and(eq(auditEntries.organizationId, organizationId), eq(auditEntries.action, 'credit.expired')));
    expect(audit).toEqual([
      expect.objectContaining({
        actorEmail: 'system',
        target: '-$5.00',
        changes: { balance: { from: 15, to: 10 }, note: { to: 'trial' }, expiresAt: { to: expiresAt.toISOString() } },
      }),
    ]);
    // A later sweep finds nothing left.
    expect(await expireGrants(testDb.db, new Date(expiresAt.getTime() + 60_000))).toEqual({ expired: 0 });
  });

  it('takes the whole remainder at its expiry, whatever calls in flight hold of it', async () => {
    const { organizationId, grantId } = await organizationWithGrant(2, 5);
    // Calls in flight hold $6 of the $7 (the meter's holds: reserved_nanos on the balance row).
    await testDb.db
      .update(creditBalances)
      .set({ reservedNanos: dollars(6) })
      .where(eq(creditBalances.organizationId, organizationId));

    expect(await expireGrants(testDb.db, expiresAt)).toEqual({ expired: 1 });
    expect(await creditOf(testDb.db, organizationId)).toEqual({ balanceNanos: dollars(2), owedNanos: 0n, promotionalNanos: 0n });
    expect(await remainingOf(grantId)).toBe(0n);
    expect((await expiries(organizationId)).map((entry) => entry.amountNanos)).toEqual([-dollars(5)]);
    expect(await expireGrants(testDb.db, new Date(expiresAt.getTime() + 60_000))).toEqual({ expired: 0 });
    await testDb.db.update(creditBalances).set({ reservedNanos: 0n }).where(eq(creditBalances.organizationId, organizationId));
  });

  it('expires the sooner grant only, and every due grant of every organisation in one sweep', async () => {
    const first = await organizationWithGrant(1, 2);
    const second = await organizationWithGrant(0, 3);
    const later = await postPromotionalGrant(
      testDb.db,
      { organizationId: first.organizationId, amountNanos: dollars(7), note: 'support', expiresAt: new Date('2030-08-01T00:00:00.000Z'), actor: systemActor },
      now,
    );
    expect(await expireGrants(testDb.db, expiresAt)).toEqual({ expired: 2 });
    expect(await creditOf(testDb.db, first.organizationId)).toEqual({ balanceNanos: dollars(8), owedNanos: 0n, promotionalNanos: dollars(7) });
    expect(await creditOf(testDb.db, second.organizationId)).toEqual({ balanceNanos: 0n, owedNanos: 0n, promotionalNanos: 0n });
    expect(await remainingOf(later.id)).toBe(dollars(7));
  });

  it('posts an expiry once when two instances sweep at the same moment', async () => {
    const { organizationId } = await organizationWithGrant(1, 5);
    const databaseUrl = testDb.handle.databaseUrl;
    // On Postgres the second instance has a pool of its own, and both sweeps wait on the balance
    // row a third connection holds, so they meet at the lock; PGlite runs one transaction at a time.
    const other = databaseUrl ? await createDb({ schema, databaseUrl, dataDir: '', service: 'api' }) : testDb.handle;
    try {
      const unlock = databaseUrl
        ? await lockRows(testDb.db, sql`select 1 from app.credit_balances where organization_id = ${organizationId}::uuid for update`)
        : () => {};
      const sweeps = Promise.all([expireGrants(testDb.db, expiresAt), expireGrants(other.db, expiresAt)]);
      if (databaseUrl) await waitForLockWaiters(2);
      unlock();
      const results = await sweeps;
      expect(results.map((result) => result.expired).sort()).toEqual([0, 1]);
    } finally {
      if (databaseUrl) await other.close();
    }
    expect(await expiries(organizationId)).toHaveLength(1);
    expect(await creditOf(testDb.db, organizationId)).toEqual({ balanceNanos: dollars(1), owedNanos: 0n, promotionalNanos: 0n });
  });
});

/** Until `count` transactions wait for a row lock (Postgres). */
async function waitForLockWaiters(count: number) {
  for (;;) {
    const result = (await testDb.db.execute(sql`select count(*)::int as waiting from pg_locks where not granted`)) as unknown as {
      rows: { waiting: number }[];
    };
    if ((result.rows[0]?.waiting ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

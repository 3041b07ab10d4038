import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { callerHours, callerSpend, chatCompletions, organizations, publishableKeys, reservations } from '../../db/schema/index.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { postEntry } from '../credit/ledger.js';
import { newKeyValue } from '../keys/key-value.js';
import { dollarsToNanos, periodStart } from '../money.js';
import { createAdmission } from './admission.js';
import { admitHolds, Refusal } from './admit-calls.js';
import { allowancesOf, type Caller, deletePastAllowances } from './allowances.js';
import { keyFinder } from './find-key.js';
import { createSettlements } from './settle-after-answer.js';
import { costOf, release, releaseExpired, settleRows, settlementRow } from './settlement.js';
import { createHoldStocks } from './hold-stock.js';
import { rowsOf } from './sql-values.js';

const t = setupTestDb({ schema, migrations });

type Caps = Pick<typeof publishableKeys.$inferInsert, 'clientSpendPerDayNanos' | 'endUserSpendPerDayNanos' | 'endUserSpendPerMonthNanos'>;

/** A key with these caps per caller, and plenty of credit and budget. */
async function keyWith(caps: Caps) {
  const organizationId = randomUUID();
  await t.db.insert(organizations).values({ id: organizationId, name: 'Allowance test' });
  await t.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollarsToNanos(10), reference: `cs_${randomUUID()}` }));
  const value = newKeyValue();
  const keyId = randomUUID();
  await t.db.insert(publishableKeys).values({
    id: keyId,
    organizationId,
    name: 'Allowance key',
    value,
    spendLimitNanos: dollarsToNanos(10),
    allowedOrigins: ['https://app.example.com'],
    ...caps,
  });
  const key = (await keyFinder(t.db)(value))!;
  return { key, value };
}

const now = new Date('2026-11-25T12:00:00Z');
const anonymous: Caller = { client: '203.0.113.9', endUser: null };
const spentOf = async (keyId: string) =>
  Object.fromEntries((await t.db.select().from(callerSpend).where(eq(callerSpend.publishableKeyId, keyId))).map((row) => [row.allowance, row]));

type Presented = Awaited<ReturnType<typeof keyWith>>;

const holdIds = (presented: Presented, ids: string[]) => ids.map((id) => ({ organizationId: presented.key.organizationId, id }));

function hold(presented: Presented, caller: Caller, amounts: bigint[], at = now) {
  const ids = amounts.map(() => randomUUID());
  const allowances = allowancesOf(presented.key, caller, at);
  return {
    ids,
    admit: () => admitHolds(t.db, { presented, now: at, period: periodStart(at), ids, amounts, expiresAt: new Date(Date.now() + 600_000), allowances }),
  };
}

/** The charge of one reserved output token at `price`, as the sweeper makes it for a forwarded call whose instance stopped. */
function forwardedCall(presented: Presented, caller: Caller, reservationId: string, price: bigint) {
  return {
    reservationId,
    organizationId: presented.key.organizationId,
    publishableKeyId: presented.key.id,
    periodStart: periodStart(now),
    completionId: `chatcmpl-${randomUUID()}`,
    model: 'meterway-demo',
    estimatedInputTokens: 0,
    inputTokens: 0,
    outputTokens: 1,
    cachedInputTokens: 0,
    usageEstimated: true,
    prices: { inputNanosPerToken: 0n, cachedInputNanosPerToken: 0n, outputNanosPerToken: price },
    priceVersion: 'test',
    provider: 'test',
    caller,
    now,
  };
}

describe("a caller's allowances in the database", () => {
  it("holds, releases and charges against a client address's day, and refuses what would pass it", async () => {
    const presented = await keyWith({ clientSpendPerDayNanos: 1_000n });
    const name = '2026-11-25 address 203.0.113.9';

    const first = hold(presented, anonymous, [400n, 400n]);
    await first.admit();
    expect((await spentOf(presented.key.id))[name]).toMatchObject({ endsOn: '2026-11-25', reservedNanos: 800n, spentNanos: 0n });
    await expect(hold(presented, anonymous, [300n]).admit()).rejects.toMatchObject({ reason: 'allowance', allowance: { kind: 'address-day', name } });
    // Another address has its own allowance.
    await hold(presented, { client: '203.0.113.10', endUser: null }, [300n]).admit();

    await release(t.db, [{ organizationId: presented.key.organizationId, id: first.ids[0]! }]);
    expect((await spentOf(presented.key.id))[name]).toMatchObject({ reservedNanos: 400n, spentNanos: 0n });

    const call = forwardedCall(presented, anonymous, first.ids[1]!, 400n);
    await t.db
      .update(reservations)
      .set({ forwarded: settlementRow(call), expiresAt: new Date(Date.now() - 1) })
      .where(eq(reservations.id, call.reservationId));
    expect(await releaseExpired(t.db, new Date())).toBe(1);
    expect((await spentOf(presented.key.id))[name]).toMatchObject({ reservedNanos: 0n, spentNanos: costOf(call).totalNanos });

    // 400 spent, so 600 is free: 600 fits, 601 does not.
    await expect(hold(presented, anonymous, [601n]).admit()).rejects.toBeInstanceOf(Refusal);
    await hold(presented, anonymous, [600n]).admit();
    await expectLedgerConsistent(t.db);
  });

  it("holds an end user's day and month together, each refusing on its own, whatever the user's id holds", async () => {
    const presented = await keyWith({ endUserSpendPerDayNanos: 500n, endUserSpendPerMonthNanos: 800n });
    const alice: Caller = { client: '203.0.113.9', endUser: 'alice "the" \\ admin, {x}' };

    const today = hold(presented, alice, [500n]);
    await today.admit();
    await expect(hold(presented, alice, [1n]).admit()).rejects.toMatchObject({ allowance: { kind: 'end-user-day' } });
    // The same user from another address is the same end user; another user is not.
    await expect(hold(presented, { ...alice, client: '198.51.100.1' }, [1n]).admit()).rejects.toBeInstanceOf(Refusal);
    await hold(presented, { client: '203.0.113.9', endUser: 'bob' }, [500n]).admit();

    // Tomorrow the day is fresh, the month is not: 300 of its 800 are left.
    const tomorrow = new Date(now.getTime() + 86_400_000);
    await expect(hold(presented, alice, [301n], tomorrow).admit()).rejects.toMatchObject({ allowance: { kind: 'end-user-month', endsOn: '2026-11-30' } });
    await hold(presented, alice, [300n], tomorrow).admit();

    const rows = await spentOf(presented.key.id);
    expect(rows[`2026-11-25 end-user ${alice.endUser}`]).toMatchObject({ reservedNanos: 500n });
    expect(rows[`2026-11-26 end-user ${alice.endUser}`]).toMatchObject({ reservedNanos: 300n });
    expect(rows[`2026-11 end-user ${alice.endUser}`]).toMatchObject({ reservedNanos: 800n, endsOn: '2026-11-30' });

    // Releasing gives back every allowance the hold counted against.
    await release(t.db, holdIds(presented, today.ids));
    const released = await spentOf(presented.key.id);
    expect(released[`2026-11-25 end-user ${alice.endUser}`]).toMatchObject({ reservedNanos: 0n });
    expect(released[`2026-11 end-user ${alice.endUser}`]).toMatchObject({ reservedNanos: 300n });
  });

  it('records the end user, the network and the callers of a settled call, never the full address on its row', async () => {
    const presented = await keyWith({ endUserSpendPerDayNanos: 1_000n });
    const alice: Caller = { client: '203.0.113.9', endUser: 'alice' };
    const admitted = hold(presented, alice, [400n]);
    await admitted.admit();
    const call = forwardedCall(presented, alice, admitted.ids[0]!, 400n);
    await t.db
      .update(reservations)
      .set({ forwarded: settlementRow(call), expiresAt: new Date(Date.now() - 1) })
      .where(eq(reservations.id, call.reservationId));
    await releaseExpired(t.db, new Date());

    const [row] = await t.db.select().from(chatCompletions).where(eq(chatCompletions.id, call.completionId));
    expect(row).toMatchObject({ endUser: 'alice', clientNetwork: '203.0.113.0/24' });
    const callers = await t.db.select().from(callerHours).where(eq(callerHours.publishableKeyId, presented.key.id));
    expect(
      callers
        .map(({ kind, caller, calls, spentNanos, hour }) => ({ kind, caller, calls, spentNanos, hour: hour.toISOString() }))
        .sort((a, b) => a.kind.localeCompare(b.kind)),
    ).toEqual([
      { kind: 'address', caller: '203.0.113.9', calls: 1, spentNanos: 400n, hour: '2026-11-25T12:00:00.000Z' },
      { kind: 'end_user', caller: 'alice', calls: 1, spentNanos: 400n, hour: '2026-11-25T12:00:00.000Z' },
    ]);
  });

  it("settles and admits a call reading its caller's own allowances only, however many callers the key has", async () => {
    const presented = await keyWith({ clientSpendPerDayNanos: 1_000_000n, endUserSpendPerDayNanos: 1_000_000n });
    const { organizationId, id: publishableKeyId } = presented.key;
    // A day's other visitors of a key in a web page.
    const others = Array.from({ length: 2_000 }, (_, i) => `2026-11-25 address 10.0.${i >> 8}.${i & 255}`);
    await t.db.insert(callerSpend).values(others.map((allowance) => ({ organizationId, publishableKeyId, allowance, endsOn: '2026-11-25' })));
    const admitted = hold(presented, anonymous, [400n]);
    await admitted.admit();
    const call = forwardedCall(presented, anonymous, admitted.ids[0]!, 400n);

    const rowsRead = await t.db.transaction(async (tx) => {
      // This transaction's reads of the table (PGlite's single backend may count earlier ones too, hence the difference).
      const callerRowsRead = async () => {
        const [read] = rowsOf<{ rows: number }>(
          await tx.execute(sql`select seq_tup_read + coalesce(idx_tup_fetch, 0) as rows from pg_stat_xact_user_tables where relname = 'caller_spend'`),
        );
        return Number(read!.rows);
      };
      const before = await callerRowsRead();
      await settleRows(tx, { organizationId, publishableKeyId, periodStart: periodStart(now) }, [settlementRow(call)], now);
      // A call naming no max_tokens is capped to what its allowances have free, read first.
      const admit = createAdmission(tx, { stocks: createHoldStocks(tx), settlements: createSettlements(tx), reservationTtlMs: 600_000 });
      const prices = { inputNanosPerToken: 1n, cachedInputNanosPerToken: 1n, outputNanosPerToken: 1n };
      await admit({ presented, prices, inputTokens: 10, choices: 1, requestedMaxTokens: undefined, maxOutputTokens: 100, caller: anonymous, now });
      return (await callerRowsRead()) - before;
    });
    // Its two allowances, each read a few times: not the 2,000 other callers' rows.
    expect(rowsRead).toBeLessThan(20);
    const rows = await spentOf(publishableKeyId);
    expect(rows['2026-11-25 address 203.0.113.9']).toMatchObject({ spentNanos: costOf(call).totalNanos, reservedNanos: 110n });
    expect(rows['2026-11-25 end-user 203.0.113.9']).toMatchObject({ spentNanos: costOf(call).totalNanos, reservedNanos: 110n });
    await expectLedgerConsistent(t.db);
  });

  it('keeps a day until the day after it, and a month until the day after its last', async () => {
    const presented = await keyWith({ clientSpendPerDayNanos: 1_000n, endUserSpendPerMonthNanos: 1_000n });
    const spent = hold(presented, anonymous, [100n]);
    await spent.admit();
    await release(t.db, holdIds(presented, spent.ids));
    const day = '2026-11-25 address 203.0.113.9';
    const month = '2026-11 end-user 203.0.113.9';
    await deletePastAllowances(t.db, new Date('2026-11-26T12:00:00Z'));
    expect(Object.keys(await spentOf(presented.key.id)).sort()).toEqual([month, day].sort());
    await deletePastAllowances(t.db, new Date('2026-11-27T00:00:00Z'));
    expect(Object.keys(await spentOf(presented.key.id))).toEqual([month]);
    await deletePastAllowances(t.db, new Date('2026-12-01T12:00:00Z'));
    expect(Object.keys(await spentOf(presented.key.id))).toEqual([month]);
    await deletePastAllowances(t.db, new Date('2026-12-02T00:00:00Z'));
    expect(await spentOf(presented.key.id)).toEqual({});
  });
});

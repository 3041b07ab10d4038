import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { clientSpend, organizations, publishableKeys, reservations } from '../../db/schema/index.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { postEntry } from '../credit/ledger.js';
import { newKeyValue } from '../keys/key-value.js';
import { dayStart, dollarsToNanos, periodStart } from '../money.js';
import { admitHolds, Refusal } from './admit-calls.js';
import { deletePastAllowances } from './client-allowance.js';
import { keyFinder } from './find-key.js';
import { costOf, release, releaseExpired, settlementRow } from './settlement.js';

const t = setupTestDb({ schema, migrations });

/** A key whose client addresses may each spend `allowance` n$ a day, with plenty of credit and budget. */
async function keyWithAllowance(allowance: bigint) {
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
    clientSpendPerDayNanos: allowance,
  });
  const key = (await keyFinder(t.db)(value))!;
  return { key, value, organizationId };
}

const now = new Date();
const client = { id: '203.0.113.9', day: dayStart(now) };
const allowanceOf = async (keyId: string) => (await t.db.select().from(clientSpend).where(eq(clientSpend.publishableKeyId, keyId)))[0];

function hold(presented: { key: Awaited<ReturnType<typeof keyWithAllowance>>['key']; value: string }, amounts: bigint[], expiresAt = new Date(now.getTime() + 600_000)) {
  const ids = amounts.map(() => randomUUID());
  return {
    ids,
    admit: () => admitHolds(t.db, { presented, now, period: periodStart(now), ids, amounts, expiresAt, client }),
  };
}

describe("a client address's daily allowance in the database", () => {
  it('holds, releases and charges against the allowance, and refuses what would pass it', async () => {
    const { key, value } = await keyWithAllowance(1_000n);
    const presented = { key, value };

    const first = hold(presented, [400n, 400n]);
    await first.admit();
    expect(await allowanceOf(key.id)).toMatchObject({ client: client.id, day: client.day, reservedNanos: 800n, spentNanos: 0n });
    await expect(hold(presented, [300n]).admit()).rejects.toEqual(new Refusal('client'));

    await release(t.db, [first.ids[0]!]);
    expect(await allowanceOf(key.id)).toMatchObject({ reservedNanos: 400n, spentNanos: 0n });

    // The other hold's call reached the provider and its instance stopped: the sweeper charges what was reserved.
    const reserved = { inputTokens: 0, outputTokens: 1 };
    const call = {
      reservationId: first.ids[1]!,
      organizationId: key.organizationId,
      publishableKeyId: key.id,
      periodStart: periodStart(now),
      completionId: `chatcmpl-${randomUUID()}`,
      model: 'meterway-demo',
      estimatedInputTokens: 0,
      ...reserved,
      cachedInputTokens: 0,
      usageEstimated: true,
      prices: { inputNanosPerToken: 0n, cachedInputNanosPerToken: 0n, outputNanosPerToken: 400n },
      priceVersion: 'test',
      now,
    };
    await t.db.update(reservations).set({ forwarded: settlementRow(call), expiresAt: new Date(now.getTime() - 1) }).where(eq(reservations.id, call.reservationId));
    expect(await releaseExpired(t.db, new Date())).toBe(1);
    expect(await allowanceOf(key.id)).toMatchObject({ reservedNanos: 0n, spentNanos: costOf(call).totalNanos });

    // 400 spent, so 600 is free: 600 fits, 601 does not.
    await expect(hold(presented, [601n]).admit()).rejects.toEqual(new Refusal('client'));
    await hold(presented, [600n]).admit();
    await expectLedgerConsistent(t.db);
  });

  it('keeps the addresses of today and yesterday only', async () => {
    const { key, value } = await keyWithAllowance(1_000n);
    const spent = hold({ key, value }, [100n]);
    await spent.admit();
    await release(t.db, spent.ids);
    await deletePastAllowances(t.db, new Date(now.getTime() + 86_400_000));
    expect(await allowanceOf(key.id)).toBeDefined();
    await deletePastAllowances(t.db, new Date(now.getTime() + 2 * 86_400_000));
    expect(await allowanceOf(key.id)).toBeUndefined();
  });
});

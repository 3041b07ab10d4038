import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { organizations } from '../../db/schema/index.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { balanceNanos, creditOf, postEntry, takeBack } from './ledger.js';

const testDb = setupTestDb({ schema, migrations });

async function newOrganization() {
  const id = randomUUID();
  await testDb.db.insert(organizations).values({ id, name: 'Test' });
  return id;
}

describe('credit ledger', () => {
  it('moves the balance with each entry and records the balance it left', async () => {
    const organizationId = await newOrganization();
    const first = await testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: 25_000_000_000n, reference: 'cs_1' }));
    expect(first).toMatchObject({ posted: true, balanceAfterNanos: 25_000_000_000n });
    const second = await testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'usage_charge', amountNanos: -1_234n, reference: 'chatcmpl-1' }));
    expect(second).toMatchObject({ posted: true, balanceAfterNanos: 24_999_998_766n });
    expect(await balanceNanos(testDb.db, organizationId)).toBe(24_999_998_766n);
    await expectLedgerConsistent(testDb.db);
  });

  it('posts a reference once: the same top-up twice credits once', async () => {
    const organizationId = await newOrganization();
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: 10_000_000_000n, reference: 'cs_same' })),
      ),
    );
    expect(results.filter((result) => result.posted)).toHaveLength(1);
    expect(await balanceNanos(testDb.db, organizationId)).toBe(10_000_000_000n);
    await expectLedgerConsistent(testDb.db);
  });

  it('refuses a debit below zero and changes nothing', async () => {
    const organizationId = await newOrganization();
    await testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: 5n, reference: 'cs_small' }));
    await expect(testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'adjustment', amountNanos: -6n, reason: 'too much' }))).rejects.toThrow(
      'This would take the credit balance below zero.',
    );
    expect(await balanceNanos(testDb.db, organizationId)).toBe(5n);
    await expectLedgerConsistent(testDb.db);
  });

  it('takes back what the balance holds and records the rest as owed; credit added later pays the debt first', async () => {
    const organizationId = await newOrganization();
    const post = (entry: Omit<Parameters<typeof postEntry>[1], 'organizationId'>) => testDb.db.transaction((tx) => postEntry(tx, { organizationId, ...entry }));
    await post({ kind: 'top_up', amountNanos: 10n, reference: 'cs_owed_1' });
    const taken = await testDb.db.transaction((tx) => takeBack(tx, { organizationId, kind: 'refund', amountNanos: 25n, reference: 'evt_owed_1' }));
    expect(taken).toMatchObject({ posted: true, balanceAfterNanos: 0n, owedAfterNanos: 15n });
    expect(await creditOf(testDb.db, organizationId)).toEqual({ balanceNanos: 0n, owedNanos: 15n, promotionalNanos: 0n });

    expect(await post({ kind: 'top_up', amountNanos: 6n, reference: 'cs_owed_2' })).toMatchObject({ balanceAfterNanos: 0n, owedAfterNanos: 9n });
    expect(await post({ kind: 'adjustment', amountNanos: 20n, reason: 'support' })).toMatchObject({ balanceAfterNanos: 11n, owedAfterNanos: 0n });
    expect(await post({ kind: 'top_up', amountNanos: 4n, reference: 'cs_owed_3' })).toMatchObject({ balanceAfterNanos: 15n, owedAfterNanos: 0n });
    await expectLedgerConsistent(testDb.db);
  });

  it('never leaves credit beside a debt, whatever the order of concurrent take-backs and top-ups', async () => {
    const organizationId = await newOrganization();
    await testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: 50n, reference: 'cs_race_0' }));
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        testDb.db.transaction((tx) =>
          i % 2
            ? takeBack(tx, { organizationId, kind: 'refund', amountNanos: 7n, reference: `evt_race_${i}` })
            : postEntry(tx, { organizationId, kind: 'top_up', amountNanos: 3n, reference: `cs_race_${i + 1}` }),
        ),
      ),
    );
    const { balanceNanos: balance, owedNanos: owed } = await creditOf(testDb.db, organizationId);
    expect(balance - owed).toBe(50n + 20n * 3n - 20n * 7n);
    expect(balance === 0n || owed === 0n).toBe(true);
    await expectLedgerConsistent(testDb.db);
  });

  it('keeps every balance equal to its ledger under 100 concurrent top-ups across 10 organisations', async () => {
    const organizationIds = await Promise.all(Array.from({ length: 10 }, () => newOrganization()));
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        testDb.db.transaction((tx) =>
          postEntry(tx, {
            organizationId: organizationIds[i % 10] ?? '',
            kind: 'top_up',
            amountNanos: BigInt(i + 1) * 1_000_000_000n,
            reference: `cs_concurrent_${i}`,
          }),
        ),
      ),
    );
    for (const [index, organizationId] of organizationIds.entries()) {
      const expected = Array.from({ length: 10 }, (_, k) => BigInt(index + 10 * k + 1) * 1_000_000_000n).reduce((a, b) => a + b, 0n);
      expect(await balanceNanos(testDb.db, organizationId)).toBe(expected);
    }
    await expectLedgerConsistent(testDb.db);
  });
});

import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { organizations } from '../../db/schema/index.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { postEntry, balanceNanos } from './ledger.js';

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
      Array.from({ length: 5 }, () => testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: 10_000_000_000n, reference: 'cs_same' }))),
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

  it('keeps every balance equal to its ledger under 100 concurrent top-ups across 10 organisations', async () => {
    const organizationIds = await Promise.all(Array.from({ length: 10 }, () => newOrganization()));
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        testDb.db.transaction((tx) =>
          postEntry(tx, { organizationId: organizationIds[i % 10] ?? '', kind: 'top_up', amountNanos: BigInt(i + 1) * 1_000_000_000n, reference: `cs_concurrent_${i}` }),
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

import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { organizations, publishableKeys } from '../../db/schema/index.js';
import { newKeyValue } from '../keys/key-value.js';
import { keyLookup } from './look-up-key.js';
import { sqlErrorOf } from './sql-values.js';

const t = setupTestDb({ schema, migrations });

async function createKey(value = newKeyValue()) {
  const organizationId = randomUUID();
  await t.db.insert(organizations).values({ id: organizationId, name: 'Lookup' });
  const [key] = await t.db
    .insert(publishableKeys)
    .values({ id: randomUUID(), organizationId, name: 'Key', value, spendLimitNanos: 1_000_000_000n, allowedOrigins: ['localhost'] })
    .returning();
  return key!;
}

describe('keyLookup', () => {
  let lookUpKey: ReturnType<typeof keyLookup>;
  beforeAll(() => {
    lookUpKey = keyLookup(t.db);
  });

  it('answers every one of many concurrent calls with their key, and other keys apart', async () => {
    const [first, second] = [await createKey(), await createKey()];
    const found = await Promise.all(Array.from({ length: 40 }, (_, i) => lookUpKey((i % 2 ? second : first).value)));
    expect(found.map((key) => key?.id)).toEqual(Array.from({ length: 40 }, (_, i) => (i % 2 ? second : first).id));
    expect(await lookUpKey(newKeyValue())).toBeUndefined();
  });

  it('never answers a call with a lookup that started before the key was deleted', async () => {
    const key = await createKey();
    const before = lookUpKey(key.value);
    await t.db.update(publishableKeys).set({ deletedAt: new Date() }).where(eq(publishableKeys.id, key.id));
    const after = lookUpKey(key.value);
    // The first lookup's query may run before the delete commits or after it (its connection is
    // taken on a later turn), so it may find the key or not; one that starts after it never may.
    expect([key.id, undefined]).toContain((await before)?.id);
    expect(await after).toBeUndefined();
  });

  it('finds a key by each value it had while that value works, and never gives a value it had to another key', async () => {
    const key = await createKey();
    const rolled = newKeyValue();
    const update = (expiresAt: Date) =>
      t.db
        .update(publishableKeys)
        .set({ value: rolled, previousValue: key.value, previousValueExpiresAt: expiresAt })
        .where(and(eq(publishableKeys.organizationId, key.organizationId), eq(publishableKeys.id, key.id)));
    await update(new Date(Date.now() + 3_600_000));
    expect((await lookUpKey(rolled))?.id).toBe(key.id);
    expect((await lookUpKey(key.value))?.id).toBe(key.id);

    await update(new Date(Date.now() - 1000));
    expect(await lookUpKey(key.value)).toBeUndefined();
    // The key_values directory keeps a value unique across organisations, the retired one too.
    for (const taken of [rolled, key.value]) {
      const error = await createKey(taken).catch((caught: unknown) => caught);
      expect(sqlErrorOf(error).code).toBe('23505');
    }
  });
});

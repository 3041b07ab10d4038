import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { keyRateWindows } from '../../db/schema/index.js';
import { createKeyRate } from './key-rate-limit.js';

const t = setupTestDb({ schema, migrations });
const consumeKeyRate = (keyId: string, limit: number, at: Date) => rate.consume(keyId, limit, at);
let rate: ReturnType<typeof createKeyRate>;
beforeAll(() => {
  rate = createKeyRate(t.db);
});
afterAll(() => rate.close());
const sharedCount = async (keyId: string) =>
  (await t.db.select().from(keyRateWindows).where(eq(keyRateWindows.publishableKeyId, keyId)))[0]?.count ?? 0;
// The middle of a minute, so no window boundary falls inside a test.
const now = () => new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);

describe('the per-key rate limit', () => {
  it('counts far from the limit without waiting on the database, and the shared count catches up', async () => {
    const keyId = randomUUID();
    for (let i = 0; i < 40; i++) expect(await consumeKeyRate(keyId, 1000, now())).toBeUndefined();

    expect(await sharedCount(keyId)).toBeLessThan(40);
    await expect.poll(() => sharedCount(keyId), { timeout: 2000 }).toBe(40);
  });

  it('holds the limit exactly near it, with Retry-After seconds to the next window', async () => {
    const keyId = randomUUID();
    const outcomes = [];
    for (let i = 0; i < 12; i++) outcomes.push(await consumeKeyRate(keyId, 10, now()));

    expect(outcomes.filter((retryAfter) => retryAfter === undefined)).toHaveLength(10);
    expect(outcomes.slice(10)).toEqual([30, 30]);
    expect(await sharedCount(keyId)).toBe(12);
  });
});

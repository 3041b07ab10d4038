import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { rateWindows } from '../../db/schema/index.js';
import { createRateWindows, deletePastWindows } from './rate-windows.js';

const t = setupTestDb({ schema, migrations });
// Windows are an organisation's: the same subject of another organisation is another window.
const organizationId = randomUUID();
const consumeKeyRate = (subject: string, limit: number, at: Date) => rate.consume(organizationId, subject, limit, at);
let rate: ReturnType<typeof createRateWindows>;
beforeAll(() => {
  rate = createRateWindows(t.db);
});
afterAll(() => rate.close());
const sharedCount = async (subject: string) =>
  (
    await t.db
      .select()
      .from(rateWindows)
      .where(and(eq(rateWindows.organizationId, organizationId), eq(rateWindows.subject, subject)))
  )[0]?.count ?? 0;
// The middle of a minute, so no window boundary falls inside a test.
const now = () => new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);

describe('shared rate windows', () => {
  it('counts far from the limit without waiting on the database, and the shared count catches up', async () => {
    const keyId = randomUUID();
    for (let i = 0; i < 40; i++) expect(await consumeKeyRate(keyId, 1000, now())).toBeUndefined();

    expect(await sharedCount(keyId)).toBeLessThan(40);
    await expect.poll(() => sharedCount(keyId), { timeout: 2000 }).toBe(40);
  });

  it('counts most calls here until the window is nearly full, each time a quarter of what is left', async () => {
    const keyId = randomUUID();
    for (let i = 0; i < 600; i++) expect(await consumeKeyRate(keyId, 1000, now())).toBeUndefined();

    // Counting each call in the database first from half the limit on would have made it 600.
    expect(await sharedCount(keyId)).toBeLessThan(600);
    await expect.poll(() => sharedCount(keyId), { timeout: 2000 }).toBe(600);
  });

  it('adds the calls of every subject counted here to their shared counts together', async () => {
    const subjects = [1, 2, 3].map((n) => `${randomUUID()} 10.0.0.${n}`);
    for (const [index, subject] of subjects.entries()) {
      for (let i = 0; i <= index * 5; i++) expect(await consumeKeyRate(subject, 1000, now())).toBeUndefined();
    }

    await expect.poll(() => Promise.all(subjects.map(sharedCount)), { timeout: 2000 }).toEqual([1, 6, 11]);
  });

  it('holds the limit exactly near it, with Retry-After seconds to the next window', async () => {
    const keyId = randomUUID();
    const outcomes = [];
    for (let i = 0; i < 12; i++) outcomes.push(await consumeKeyRate(keyId, 10, now()));

    expect(outcomes.filter((retryAfter) => retryAfter === undefined)).toHaveLength(10);
    expect(outcomes.slice(10)).toEqual([30, 30]);
    expect(await sharedCount(keyId)).toBe(12);
  });

  it('counts each subject on its own, and past windows are deleted by the sweep', async () => {
    const keyId = randomUUID();
    const [first, second] = [`${keyId} 127.0.0.2`, `${keyId} 127.0.0.3`];
    for (let i = 0; i < 3; i++) expect(await consumeKeyRate(first, 3, now())).toBeUndefined();
    expect(await consumeKeyRate(first, 3, now())).toBe(30);
    expect(await consumeKeyRate(second, 3, now())).toBeUndefined();

    await deletePastWindows(t.db, new Date(now().getTime() + 60_000));
    expect(await sharedCount(first)).toBe(4);
    await deletePastWindows(t.db, new Date(now().getTime() + 180_000));
    expect(await sharedCount(first)).toBe(0);
  });
});

import { setupTestDb } from '@meterway/db/testing';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { reservations } from '../../db/schema/index.js';
import { threeHeldCalls } from '../../testing/held-calls.js';
import { createForwardedRecords, forwardedRecordDelayMs } from './forwarded.js';
import { type Metered, settlementRow } from './settlement.js';

const t = setupTestDb({ schema, migrations });
const now = new Date('2026-11-28T12:00:00Z');

const recordsOf = async (organizationId: string) =>
  new Map((await t.db.select().from(reservations).where(eq(reservations.organizationId, organizationId))).map((hold) => [hold.id, hold.forwarded]));

describe('the record that a call reached the provider', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is written on the hold of a call still unsettled after the delay, and never for one settled sooner', async () => {
    const { organizationId, calls } = await threeHeldCalls(t.db, now);
    const [settledSoon, slow, later] = calls as [Metered, Metered, Metered];
    const records = createForwardedRecords(t.db);
    const errors: unknown[] = [];
    const settle = records.mark(
      () => settledSoon,
      (error) => errors.push(error),
    );
    records.mark(
      () => slow,
      (error) => errors.push(error),
    );
    await vi.advanceTimersByTimeAsync(forwardedRecordDelayMs - 10);
    settle();
    records.mark(
      () => later,
      (error) => errors.push(error),
    );

    // `slow` has been unsettled for the delay; `later`, forwarded 40 ms after it, not yet.
    await vi.advanceTimersByTimeAsync(forwardedRecordDelayMs / 2 + 10);
    // The statement runs in the background: wait (in real time) until it has landed.
    let held = await recordsOf(organizationId);
    for (let poll = 0; poll < 200 && !held.get(slow.reservationId); poll++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      held = await recordsOf(organizationId);
    }
    expect(held.get(slow.reservationId)).toEqual(JSON.parse(JSON.stringify(settlementRow(slow))));
    expect(held.get(settledSoon.reservationId)).toBeNull();
    expect(held.get(later.reservationId)).toBeNull();

    // At shutdown every call still pending is recorded at once.
    await records.close();
    held = await recordsOf(organizationId);
    expect(held.get(later.reservationId)).toMatchObject({ completion_id: later.completionId, usage_estimated: true });
    expect(held.get(settledSoon.reservationId)).toBeNull();
    expect(errors).toEqual([]);
  });

  it('names the provider that has the call when it is written, after a fallback the one that took it over', async () => {
    const { organizationId, calls } = await threeHeldCalls(t.db, now);
    const call = calls[0]!;
    const records = createForwardedRecords(t.db);
    let provider = 'primary';
    records.mark(
      () => ({ ...call, provider }),
      () => undefined,
    );
    // The first provider fails at once and the next takes the call over before the record is due.
    provider = 'fallback';
    await records.close();
    expect((await recordsOf(organizationId)).get(call.reservationId)).toMatchObject({ completion_id: call.completionId, provider: 'fallback' });
  });
});

import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { type Metered, settlementRow } from './settlement.js';
import { pgArray } from './sql-values.js';

/**
 * How long a forwarded call stays unsettled before its hold records it. Most calls are settled
 * sooner and need no record at all; the others are recorded together, one round trip per check
 * (every half of this while calls are in flight), so each within 1.5 × this of being forwarded.
 * A hard crash can lose at most the calls forwarded within that (and the statement's round trip).
 */
export const forwardedRecordDelayMs = 50;
const checkEveryMs = forwardedRecordDelayMs / 2;

export type ForwardedRecords = {
  /**
   * Notes, without holding the call back, that it is about to reach the provider, with what it is
   * charged if its instance stops before settling it (`reserved`: all that was reserved, read when
   * the record is written, so it names the provider that has the call then, after a fallback the
   * one that took it over); the hold records it once the call has been unsettled for
   * `forwardedRecordDelayMs`. Once recorded, the sweeper charges it when its hold expires. Answers
   * the function to call when the call is settled or given back, after which no record is needed.
   */
  mark: (reserved: () => Metered, onError: (error: unknown) => void) => () => void;
  /** Records the calls still pending at once (at shutdown: a call still with the provider may outlive the process). */
  close: () => Promise<void>;
};

type Pending = { reserved: () => Metered; onError: (error: unknown) => void; markedAt: number };

export function createForwardedRecords(db: Database): ForwardedRecords {
  // In the order the calls were marked, so the ones due come first.
  const pending = new Set<Pending>();
  let timer: NodeJS.Timeout | undefined;

  /** Records on their holds that the calls unsettled since `markedBefore` reached the provider, in one round trip. */
  async function flush(markedBefore: number): Promise<void> {
    const calls: Pending[] = [];
    for (const call of pending) {
      if (call.markedAt > markedBefore) break;
      calls.push(call);
      pending.delete(call);
    }
    if (pending.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
    if (calls.length === 0) return;
    try {
      const records = calls.map(({ reserved }) => reserved());
      await db.execute(sql`select app.record_forwarded(${pgArray(records.map((call) => call.organizationId))}::uuid[],
        ${pgArray(records.map((call) => call.reservationId))}::uuid[], ${JSON.stringify(records.map((call) => settlementRow(call)))}::jsonb)`);
    } catch (error) {
      for (const call of calls) call.onError(error);
    }
  }

  return {
    mark: (reserved, onError) => {
      const call: Pending = { reserved, onError, markedAt: Date.now() };
      pending.add(call);
      timer ??= setInterval(() => void flush(Date.now() - forwardedRecordDelayMs), checkEveryMs).unref();
      return () => pending.delete(call);
    },
    close: () => flush(Infinity),
  };
}

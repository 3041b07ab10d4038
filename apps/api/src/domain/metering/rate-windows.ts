import type { Database } from '@meterway/db';
import { lt, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import { rateWindows } from '../../db/schema/index.js';

/** Adds `calls` to the subject's shared one-minute window; the window's count afterwards. */
async function addToWindow(db: Database, subject: string, windowStart: Date, calls: number): Promise<number> {
  const start = sql`${windowStart.toISOString()}::timestamptz`;
  const [row] = await db
    .insert(rateWindows)
    .values({ subject, windowStart, count: calls })
    .onConflictDoUpdate({
      target: rateWindows.subject,
      // A late flush for a window already past changes nothing.
      set: {
        count: sql`case when ${rateWindows.windowStart} = ${start} then ${rateWindows.count} + ${calls}
          when ${rateWindows.windowStart} < ${start} then ${calls} else ${rateWindows.count} end`,
        windowStart: sql`greatest(${rateWindows.windowStart}, ${start})`,
      },
    })
    .returning({ count: rateWindows.count });
  return row?.count ?? calls;
}

/** Windows that ended over a minute ago count for nothing: one row per client address would otherwise pile up. */
export async function deletePastWindows(db: Database, now: Date): Promise<void> {
  await db.delete(rateWindows).where(lt(rateWindows.windowStart, new Date(now.getTime() - 120_000)));
}

/** This instance's view of one subject's current window. */
type Window = { start: number; shared: number | undefined; unsent: number; flush: NodeJS.Timeout | undefined };

const flushAfterMs = 100;
/** An instance counts locally at most 1/localShare of what its window has left. */
const localShare = 4;

export type RateWindows = {
  /**
   * Counts one request against the subject's one-minute window (a key, or one client address of a
   * key), shared by every instance through the database. Returns the seconds to wait when the
   * subject is over its limit.
   *
   * Calls are counted here and added to the shared count within 100 ms, so the hot path does not
   * touch the database, as long as this instance's unsent calls stay within a quarter of what the
   * window had left when last seen (four instances that saw the same count stay within the limit). That
   * share shrinks as the window fills: the call past it adds everything unsent to the shared count
   * and waits for it, and in the last few calls of a window each call is counted in the database
   * first, so the limit holds exactly where it matters.
   */
  consume: (subject: string, limitPerMinute: number, now: Date) => Promise<number | undefined>;
  /** Stops the pending flushes: at shutdown at most 100 ms of counts are lost; the limit is a guard, not a bill. */
  close: () => void;
};

export function createRateWindows(db: Database): RateWindows {
  const windows = new LRUCache<string, Window>({ max: 100_000 });

  function flushLater(subject: string, window: Window) {
    window.flush ??= setTimeout(() => {
      window.flush = undefined;
      const calls = window.unsent;
      window.unsent = 0;
      if (calls === 0 || window.start !== Math.floor(Date.now() / 60_000) * 60_000) return;
      addToWindow(db, subject, new Date(window.start), calls).then(
        (count) => (window.shared = count),
        () => undefined,
      );
    }, flushAfterMs).unref();
  }

  async function consume(subject: string, limitPerMinute: number, now: Date) {
    const start = Math.floor(now.getTime() / 60_000) * 60_000;
    let window = windows.get(subject);
    if (!window || window.start !== start) {
      window = { start, shared: undefined, unsent: 0, flush: undefined };
      windows.set(subject, window);
    }
    if (window.shared !== undefined && (window.unsent + 1) * localShare <= limitPerMinute - window.shared) {
      window.unsent += 1;
      flushLater(subject, window);
      return undefined;
    }
    const calls = window.unsent + 1;
    window.unsent = 0;
    const count = await addToWindow(db, subject, new Date(start), calls);
    window.shared = count;
    if (count <= limitPerMinute) return undefined;
    return Math.max(1, Math.ceil((start + 60_000 - now.getTime()) / 1000));
  }

  return {
    consume,
    close: () => {
      for (const window of windows.values()) clearTimeout(window.flush);
      windows.clear();
    },
  };
}

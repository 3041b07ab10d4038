import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { keyRateWindows } from '../../db/schema/index.js';

/** Adds `calls` to the key's shared one-minute window; the window's count afterwards. */
async function addToWindow(db: Database, keyId: string, windowStart: Date, calls: number): Promise<number> {
  const start = sql`${windowStart.toISOString()}::timestamptz`;
  const [row] = await db
    .insert(keyRateWindows)
    .values({ publishableKeyId: keyId, windowStart, count: calls })
    .onConflictDoUpdate({
      target: keyRateWindows.publishableKeyId,
      // A late flush for a window already past changes nothing.
      set: {
        count: sql`case when ${keyRateWindows.windowStart} = ${start} then ${keyRateWindows.count} + ${calls}
          when ${keyRateWindows.windowStart} < ${start} then ${calls} else ${keyRateWindows.count} end`,
        windowStart: sql`greatest(${keyRateWindows.windowStart}, ${start})`,
      },
    })
    .returning({ count: keyRateWindows.count });
  return row?.count ?? calls;
}

/** This instance's view of one key's current window. */
type Window = { start: number; shared: number | undefined; unsent: number; flush: NodeJS.Timeout | undefined };

const flushAfterMs = 100;

export type KeyRate = {
  /**
   * Counts one request against the key's one-minute window, shared by every instance through the
   * database. Returns the seconds to wait when the key is over its limit.
   *
   * Far from the limit (under half of it, as last seen), calls are counted here and added to the
   * shared count within 100 ms, so the hot path does not touch the database; near the limit every
   * call is counted in the database first, so the limit holds exactly where it matters.
   */
  consume: (keyId: string, limitPerMinute: number, now: Date) => Promise<number | undefined>;
  /** Stops the pending flushes: at shutdown at most 100 ms of counts are lost; the limit is a guard, not a bill. */
  close: () => void;
};

export function createKeyRate(db: Database): KeyRate {
  const windows = new Map<string, Window>();

  function flushLater(keyId: string, window: Window) {
    window.flush ??= setTimeout(() => {
      window.flush = undefined;
      const calls = window.unsent;
      window.unsent = 0;
      if (calls === 0 || window.start !== Math.floor(Date.now() / 60_000) * 60_000) return;
      addToWindow(db, keyId, new Date(window.start), calls).then(
        (count) => (window.shared = count),
        () => undefined,
      );
    }, flushAfterMs).unref();
  }

  async function consume(keyId: string, limitPerMinute: number, now: Date) {
    const start = Math.floor(now.getTime() / 60_000) * 60_000;
    let window = windows.get(keyId);
    if (!window || window.start !== start) {
      if (windows.size > 100_000) windows.clear();
      window = { start, shared: undefined, unsent: 0, flush: undefined };
      windows.set(keyId, window);
    }
    if (window.shared !== undefined && window.shared + window.unsent + 1 <= limitPerMinute / 2) {
      window.unsent += 1;
      flushLater(keyId, window);
      return undefined;
    }
    const calls = window.unsent + 1;
    window.unsent = 0;
    const count = await addToWindow(db, keyId, new Date(start), calls);
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

import type { Database } from '@meterway/db';
import { lt, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import { rateWindows } from '../../db/schema/index.js';
import { pgArray, pgTextArray, rowsOf } from './sql-values.js';

/** A window's name on this instance: its organisation and subject, as its row's key. */
const windowOf = (window: { organizationId: string; subject: string }) => `${window.organizationId} ${window.subject}`;

type Added = { organizationId: string; subject: string; windowStart: number; calls: number };

/**
 * Adds calls to subjects' shared one-minute windows in one statement (one commit however many
 * subjects a flush carries); each window's count afterwards. A late flush for a window already
 * past changes nothing. Rows go in key order, so two instances' flushes never deadlock. Answers
 * by `<organization id> <subject>`.
 */
async function addToWindows(db: Database, added: Added[]): Promise<Map<string, number>> {
  const rows = [...added].sort((a, b) => (windowOf(a) < windowOf(b) ? -1 : 1));
  const result = await db.execute(sql`insert into app.rate_windows as w (organization_id, subject, window_start, count)
    select * from unnest(${pgArray(rows.map((row) => row.organizationId))}::uuid[], ${pgTextArray(rows.map((row) => row.subject))}::text[],
      ${pgTextArray(rows.map((row) => new Date(row.windowStart).toISOString()))}::timestamptz[],
      ${pgArray(rows.map((row) => row.calls))}::integer[])
    on conflict (organization_id, subject) do update set
      count = case when w.window_start = excluded.window_start then w.count + excluded.count
        when w.window_start < excluded.window_start then excluded.count else w.count end,
      window_start = greatest(w.window_start, excluded.window_start)
    returning organization_id, subject, count`);
  return new Map(
    rowsOf<{ organization_id: string; subject: string; count: number }>(result).map((row) => [
      windowOf({ organizationId: row.organization_id, subject: row.subject }),
      Number(row.count),
    ]),
  );
}

/** Windows that ended over a minute ago count for nothing: one row per client address would otherwise pile up. */
export async function deletePastWindows(db: Database, now: Date): Promise<void> {
  await db.delete(rateWindows).where(lt(rateWindows.windowStart, new Date(now.getTime() - 120_000)));
}

/** This instance's view of one subject's current window. */
type Window = { organizationId: string; subject: string; start: number; shared: number | undefined; unsent: number };

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
  consume: (organizationId: string, subject: string, limitPerMinute: number, now: Date) => Promise<number | undefined>;
  /** Stops the pending flushes: at shutdown at most 100 ms of counts are lost; the limit is a guard, not a bill. */
  close: () => void;
};

const minuteOf = (epochMs: number) => Math.floor(epochMs / 60_000) * 60_000;

export function createRateWindows(db: Database): RateWindows {
  const windows = new LRUCache<string, Window>({ max: 100_000 });
  /** Windows with calls counted here and not yet added to the shared count, flushed together. */
  const unsent = new Map<string, Window>();
  let flushTimer: NodeJS.Timeout | undefined;

  function flush() {
    flushTimer = undefined;
    const current = minuteOf(Date.now());
    const flushed = [...unsent].filter(([, window]) => window.unsent > 0 && window.start === current);
    const added = flushed.map(([, window]) => ({
      organizationId: window.organizationId,
      subject: window.subject,
      windowStart: window.start,
      calls: window.unsent,
    }));
    for (const window of unsent.values()) window.unsent = 0;
    unsent.clear();
    if (added.length === 0) return;
    addToWindows(db, added).then(
      (counts) => {
        for (const [name, window] of flushed) window.shared = counts.get(name) ?? window.shared;
      },
      () => undefined,
    );
  }

  async function consume(organizationId: string, subject: string, limitPerMinute: number, now: Date) {
    const start = minuteOf(now.getTime());
    const name = windowOf({ organizationId, subject });
    let window = windows.get(name);
    if (!window || window.start !== start) {
      window = { organizationId, subject, start, shared: undefined, unsent: 0 };
      windows.set(name, window);
    }
    if (window.shared !== undefined && (window.unsent + 1) * localShare <= limitPerMinute - window.shared) {
      window.unsent += 1;
      unsent.set(name, window);
      flushTimer ??= setTimeout(flush, flushAfterMs).unref();
      return undefined;
    }
    const calls = window.unsent + 1;
    window.unsent = 0;
    const count = (await addToWindows(db, [{ organizationId, subject, windowStart: start, calls }])).get(name) ?? calls;
    window.shared = count;
    if (count <= limitPerMinute) return undefined;
    return Math.max(1, Math.ceil((start + 60_000 - now.getTime()) / 1000));
  }

  return {
    consume,
    close: () => {
      clearTimeout(flushTimer);
      unsent.clear();
      windows.clear();
    },
  };
}

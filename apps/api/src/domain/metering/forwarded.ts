import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { perDatabase } from './per-database.js';
import { type Metered, settlementRow } from './settlement.js';

/**
 * How long a forwarded call waits before its hold records it. Most calls are settled sooner and
 * need no record at all; the others are recorded together, one statement per interval. A hard
 * crash can lose at most the calls forwarded within it (and the statement's round trip).
 */
export const forwardedRecordDelayMs = 50;

type Pending = { calls: Map<string, { reserved: Metered; onError: (error: unknown) => void }>; timer: NodeJS.Timeout | undefined };

const pendingFor = perDatabase((): Pending => ({ calls: new Map(), timer: undefined }));

/** Records on their holds that the pending calls reached the provider, in one statement. */
async function flush(db: Database, pending: Pending): Promise<void> {
  pending.timer = undefined;
  const calls = [...pending.calls.values()];
  pending.calls.clear();
  if (calls.length === 0) return;
  try {
    await db.execute(sql`update app.reservations as r set forwarded = c.row
      from jsonb_array_elements(${JSON.stringify(calls.map((call) => settlementRow(call.reserved)))}::jsonb) as c(row)
      where r.id = (c.row->>'reservation_id')::uuid`);
  } catch (error) {
    for (const call of calls) call.onError(error);
  }
}

/**
 * Notes, without holding the call back, that it is about to reach the provider, with what it is
 * charged if its instance stops before settling it (`reserved`: all that was reserved); the hold
 * records it within `forwardedRecordDelayMs` unless the call is done first. Once recorded, the
 * sweeper charges it when its hold expires. Answers the function to call when the call is settled
 * or given back, after which no record is needed.
 */
export function markForwarded(db: Database, reserved: Metered, onError: (error: unknown) => void): () => void {
  const pending = pendingFor(db);
  pending.calls.set(reserved.reservationId, { reserved, onError });
  // Not kept alive for it: at shutdown the calls in flight are settled, which needs no record.
  pending.timer ??= setTimeout(() => void flush(db, pending), forwardedRecordDelayMs).unref();
  return () => pending.calls.delete(reserved.reservationId);
}

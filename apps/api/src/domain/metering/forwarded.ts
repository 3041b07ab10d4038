import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { batchBy, type Outcome } from './batch.js';
import { perDatabase } from './per-database.js';
import { type Metered, settlementRow } from './settlement.js';

/** Records on holds that their calls reached the provider, many holds in one statement. */
async function markAll(db: Database, calls: Metered[]): Promise<Outcome<void>[]> {
  const rows = calls.map(settlementRow);
  await db.execute(sql`update app.reservations as r set forwarded = c.row
    from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) as c(row)
    where r.id = (c.row->>'reservation_id')::uuid`);
  return calls.map(() => ({ ok: true, value: undefined }));
}

// One group for all keys: the calls forwarded while a write is under way go in the next one.
const markerFor = perDatabase((db) => batchBy((_call: Metered) => 'forwarded', (calls) => markAll(db, calls)));

/**
 * Records, without holding the call back, that it is about to reach the provider, with what it is
 * charged if its instance stops before settling it: `reserved`, all that was reserved. Until the
 * write lands (one round trip, shared by the calls forwarded meanwhile) a hard crash still loses
 * the call; after it, the sweeper charges it once its hold expires. A settlement that comes first
 * leaves nothing to mark.
 */
export function markForwarded(db: Database, reserved: Metered, onError: (error: unknown) => void): void {
  markerFor(db)(reserved).catch(onError);
}

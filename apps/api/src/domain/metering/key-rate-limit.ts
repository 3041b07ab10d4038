import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { keyRateWindows } from '../../db/schema/index.js';

/**
 * Counts one request against the key's one-minute window, in the database so every instance
 * shares it. Returns the seconds to wait when the key is over its limit.
 */
export async function consumeKeyRate(db: Database, keyId: string, limitPerMinute: number, now: Date): Promise<number | undefined> {
  const windowStart = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const [row] = await db
    .insert(keyRateWindows)
    .values({ publishableKeyId: keyId, windowStart, count: 1 })
    .onConflictDoUpdate({
      target: keyRateWindows.publishableKeyId,
      set: {
        count: sql`case when ${keyRateWindows.windowStart} = ${windowStart.toISOString()}::timestamptz then ${keyRateWindows.count} + 1 else 1 end`,
        windowStart: sql`${windowStart.toISOString()}::timestamptz`,
      },
    })
    .returning({ count: keyRateWindows.count });
  if (!row || row.count <= limitPerMinute) return undefined;
  return Math.max(1, Math.ceil((windowStart.getTime() + 60_000 - now.getTime()) / 1000));
}

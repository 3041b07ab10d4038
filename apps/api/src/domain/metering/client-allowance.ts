import type { Database } from '@meterway/db';
import { and, eq, lt } from 'drizzle-orm';
import { clientSpend } from '../../db/schema/index.js';
import { dayStart } from '../money.js';

/**
 * A client address's spend is kept for today and yesterday only (a call admitted before midnight
 * may settle after it): older rows, none of them holding anything, are deleted with the address.
 */
export async function deletePastAllowances(db: Database, now: Date): Promise<void> {
  const yesterday = dayStart(new Date(now.getTime() - 86_400_000));
  await db.delete(clientSpend).where(and(lt(clientSpend.day, yesterday), eq(clientSpend.reservedNanos, 0n)));
}

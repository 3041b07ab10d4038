import type { Database } from '@meterway/db';
import { lt } from 'drizzle-orm';
import { callerHours } from '../../db/schema/index.js';

/** How long the callers view's hours, full client addresses included, are kept. */
export const callerHoursKeptMs = 48 * 3_600_000;

/** Callers' hours older than two days are deleted, and with them the addresses they name. */
export async function deletePastCallerHours(db: Database, now: Date): Promise<void> {
  await db.delete(callerHours).where(lt(callerHours.hour, new Date(now.getTime() - callerHoursKeptMs)));
}

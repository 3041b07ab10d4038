import type { Database } from '@meterway/db';
import { and, eq, lt, ne, or } from 'drizzle-orm';
import { courierMessages } from '../db/schema/courier.js';
import { flowCodes, flows } from '../db/schema/flows.js';
import { rateLimits } from '../db/schema/rate-limits.js';
import { sessions } from '../db/schema/sessions.js';

/**
 * How long a dead row is kept: an expired flow (and code) still answers "expired, here is a new
 * one" for an hour; a revoked session goes at once; a rate-limit row outlives the longest window
 * (an hour) by a day; a sent or abandoned mail stays a week.
 */
export const sweepRetention = { flowsMs: 60 * 60 * 1000, sessionsMs: 60 * 60 * 1000, rateLimitsMs: 24 * 60 * 60 * 1000, mailsMs: 7 * 24 * 60 * 60 * 1000 };

export type SweepCounts = { flows: number; codes: number; sessions: number; rateLimits: number; mails: number };

/** Deletes what can no longer be used (as `kratos cleanup sql` does): expired flows, codes, sessions and rate-limit windows. */
export async function sweepExpired(db: Database, now: Date, sessionIdleTimeoutMs: number): Promise<SweepCounts> {
  const before = (ms: number) => new Date(now.getTime() - ms);
  const flowRows = await db
    .delete(flows)
    .where(lt(flows.expiresAt, before(sweepRetention.flowsMs)))
    .returning({ id: flows.id });
  // Codes go with their flow; these are a live flow's codes that expired (a flow outlives its first code when it sends another).
  const codeRows = await db
    .delete(flowCodes)
    .where(lt(flowCodes.expiresAt, before(sweepRetention.flowsMs)))
    .returning({ id: flowCodes.id });
  const sessionRows = await db
    .delete(sessions)
    .where(
      or(
        eq(sessions.active, false),
        lt(sessions.expiresAt, before(sweepRetention.sessionsMs)),
        lt(sessions.lastActiveAt, before(sweepRetention.sessionsMs + sessionIdleTimeoutMs)),
      ),
    )
    .returning({ id: sessions.id });
  const rateRows = await db
    .delete(rateLimits)
    .where(lt(rateLimits.windowStart, before(sweepRetention.rateLimitsMs)))
    .returning({ key: rateLimits.key });
  // Sent and abandoned mail (bodies already blanked) is kept a week, for looking into a complaint.
  const mailRows = await db
    .delete(courierMessages)
    .where(and(ne(courierMessages.status, 'queued'), lt(courierMessages.updatedAt, before(sweepRetention.mailsMs))))
    .returning({ id: courierMessages.id });
  return { flows: flowRows.length, codes: codeRows.length, sessions: sessionRows.length, rateLimits: rateRows.length, mails: mailRows.length };
}

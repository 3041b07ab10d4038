import { clientOf } from '@meterway/service';
import { eq, sql } from 'drizzle-orm';
import type { IdentityContext } from '../context.js';
import { rateLimits } from '../db/schema/rate-limits.js';
import { errors } from '../flows/errors.js';

/** Five tries are free; then each needs a wait since the last: 1 s, doubling, at most 15 minutes. */
export const loginDelay = { freeAttempts: 5, firstDelaySeconds: 1, maxDelaySeconds: 15 * 60 };

/**
 * Failed logins count per identifier and client address, so a stranger elsewhere cannot slow the
 * owner down. The row (in rate_limits: count = attempts since the last success, window_start =
 * the last attempt) is claimed in one statement before the password is judged, so simultaneous
 * guesses cannot all pass; a right password clears it, a day of quiet lets the sweeper drop it.
 */
const keyOf = (identifier: string, ip: string) => `login:delay:${identifier}:${clientOf(ip)}`;

const delaySeconds = sql`least(${loginDelay.maxDelaySeconds}, ${loginDelay.firstDelaySeconds} * power(2, ${rateLimits.count} - ${loginDelay.freeAttempts}))`;

/** Counts the attempt, or throws 429 (Kratos envelope) while the wait since the last one is not over. */
export async function claimLoginAttempt(ctx: IdentityContext, identifier: string, ip: string): Promise<void> {
  const now = ctx.clock.now();
  const key = keyOf(identifier, ip);
  const claimed = await ctx.db
    .insert(rateLimits)
    .values({ key, windowStart: now, count: 1 })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: { count: sql`${rateLimits.count} + 1`, windowStart: now },
      setWhere: sql`${rateLimits.count} < ${loginDelay.freeAttempts} or ${rateLimits.windowStart} + ${delaySeconds} * interval '1 second' <= ${now.toISOString()}::timestamptz`,
    })
    .returning({ key: rateLimits.key });
  if (claimed.length > 0) return;
  const [row] = await ctx.db
    .select({ readyAt: sql<string>`${rateLimits.windowStart} + ${delaySeconds} * interval '1 second'` })
    .from(rateLimits)
    .where(eq(rateLimits.key, key));
  const readyAt = row ? new Date(row.readyAt).getTime() : now.getTime();
  throw errors.tooManyRequests(Math.max(1, Math.ceil((readyAt - now.getTime()) / 1000)));
}

export async function clearLoginFailures(ctx: IdentityContext, identifier: string, ip: string): Promise<void> {
  await ctx.db.delete(rateLimits).where(eq(rateLimits.key, keyOf(identifier, ip)));
}

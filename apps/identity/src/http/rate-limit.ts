import { eq, sql } from 'drizzle-orm';
import type { IdentityContext } from '../context.js';
import { rateLimits } from '../db/schema/rate-limits.js';
import { errors } from '../flows/errors.js';

/** A fixed window of `limit` attempts per `windowSeconds`, counted in the database so every instance shares it. */
export type RateRule = { key: string; limit: number; windowSeconds: number };

export const rateRules = {
  loginIp: (ip: string): RateRule => ({ key: `login:ip:${ip}`, limit: 30, windowSeconds: 600 }),
  loginFailures: (identifier: string): RateRule => ({ key: `login:failed:${identifier}`, limit: 10, windowSeconds: 900 }),
  registrationIp: (ip: string): RateRule => ({ key: `registration:ip:${ip}`, limit: 20, windowSeconds: 600 }),
  verificationIp: (ip: string): RateRule => ({ key: `verification:ip:${ip}`, limit: 60, windowSeconds: 600 }),
  recoveryIp: (ip: string): RateRule => ({ key: `recovery:ip:${ip}`, limit: 20, windowSeconds: 600 }),
  recoveryAddress: (email: string): RateRule => ({ key: `recovery:address:${email}`, limit: 5, windowSeconds: 3600 }),
};

/** Counts one attempt against each rule; throws 429 (Kratos envelope) when any is over its limit. */
export async function consumeRateLimit(ctx: IdentityContext, rules: RateRule[]): Promise<void> {
  const now = ctx.clock.now();
  for (const rule of rules.map((candidate) => scaled(ctx, candidate))) {
    const windowOpen = new Date(now.getTime() - rule.windowSeconds * 1000);
    const [row] = await ctx.db
      .insert(rateLimits)
      .values({ key: rule.key, windowStart: now, count: 1 })
      .onConflictDoUpdate({
        target: rateLimits.key,
        set: {
          count: sql`case when ${rateLimits.windowStart} <= ${windowOpen.toISOString()} then 1 else ${rateLimits.count} + 1 end`,
          windowStart: sql`case when ${rateLimits.windowStart} <= ${windowOpen.toISOString()} then ${now.toISOString()}::timestamptz else ${rateLimits.windowStart} end`,
        },
      })
      .returning();
    if (row && row.count > rule.limit) throw errors.tooManyRequests(retryAfter(row.windowStart, rule, now));
  }
}

/** Throws 429 when a rule is already over its limit, without counting (failures are counted separately). */
export async function assertNotLimited(ctx: IdentityContext, unscaled: RateRule): Promise<void> {
  const rule = scaled(ctx, unscaled);
  const now = ctx.clock.now();
  const [row] = await ctx.db.select().from(rateLimits).where(eq(rateLimits.key, rule.key)).limit(1);
  if (row && row.count >= rule.limit && row.windowStart.getTime() > now.getTime() - rule.windowSeconds * 1000) {
    throw errors.tooManyRequests(retryAfter(row.windowStart, rule, now));
  }
}

const scaled = (ctx: IdentityContext, rule: RateRule): RateRule => ({ ...rule, limit: Math.max(1, Math.round(rule.limit * ctx.config.rateLimitMultiplier)) });

const retryAfter = (windowStart: Date, rule: RateRule, now: Date) =>
  Math.max(1, Math.ceil((windowStart.getTime() + rule.windowSeconds * 1000 - now.getTime()) / 1000));

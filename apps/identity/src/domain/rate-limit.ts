import { clientOf } from '@meterway/service';
import { eq, sql } from 'drizzle-orm';
import type { IdentityContext } from '../context.js';
import { rateLimits } from '../db/schema/rate-limits.js';
import { errors } from '../flows/errors.js';

/** A fixed window of `limit` attempts per `windowSeconds`, counted in the database so every instance shares it. */
export type RateRule = { key: string; limit: number; windowSeconds: number };

// Per-address rules count the client as the gateway does: an IPv6 address by its /64, which one subscriber has whole.
export const rateRules = {
  /** New flows (each a row until the sweeper removes it an hour after it expires): one every 2 s, sustained, per address. */
  flowCreationIp: (ip: string): RateRule => ({ key: `flows:ip:${clientOf(ip)}`, limit: 300, windowSeconds: 600 }),
  loginIp: (ip: string): RateRule => ({ key: `login:ip:${clientOf(ip)}`, limit: 30, windowSeconds: 600 }),
  /**
   * Failed logins for one identifier from every address together, for browsers it never signed in
   * with: a botnet's guesses, each address held up by its own delays (login-delay.ts), still meet this.
   */
  loginFailures: (identifier: string): RateRule => ({ key: `login:failed:${identifier}`, limit: 100, windowSeconds: 3600 }),
  /** Wrong sign-in codes (or passwords with them) per identity, from any address: the mailed code is the owner's way past loginFailures. */
  loginCodeFailures: (identityId: string): RateRule => ({ key: `login:code-failed:${identityId}`, limit: 10, windowSeconds: 900 }),
  /** Wrong TOTP codes per identity, from any address: a password alone must not buy a botnet a million guesses. */
  secondFactorFailures: (identityId: string): RateRule => ({ key: `login:totp-failed:${identityId}`, limit: 10, windowSeconds: 900 }),
  registrationIp: (ip: string): RateRule => ({ key: `registration:ip:${clientOf(ip)}`, limit: 20, windowSeconds: 600 }),
  verificationIp: (ip: string): RateRule => ({ key: `verification:ip:${clientOf(ip)}`, limit: 60, windowSeconds: 600 }),
  /** Each new code resets a flow's 5 tries: without this, resending from many addresses buys unlimited guesses. */
  verificationAddress: (email: string): RateRule => ({ key: `verification:address:${email}`, limit: 5, windowSeconds: 3600 }),
  recoveryIp: (ip: string): RateRule => ({ key: `recovery:ip:${clientOf(ip)}`, limit: 20, windowSeconds: 600 }),
  recoveryAddress: (email: string): RateRule => ({ key: `recovery:address:${email}`, limit: 5, windowSeconds: 3600 }),
};

/** Counts one attempt against each rule; throws 429 (Kratos envelope) when any is over its limit. */
export async function consumeRateLimit(ctx: IdentityContext, rules: RateRule[]): Promise<void> {
  for (const rule of rules) {
    const retryAfterSeconds = await overRateLimit(ctx, rule);
    if (retryAfterSeconds !== undefined) throw errors.tooManyRequests(retryAfterSeconds);
  }
}

/** Counts one attempt against the rule: the seconds until its window reopens when it is over its limit, else undefined. */
export async function overRateLimit(ctx: IdentityContext, unscaled: RateRule): Promise<number | undefined> {
  const now = ctx.clock.now();
  const rule = scaled(ctx, unscaled);
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
  return row && row.count > rule.limit ? retryAfter(row.windowStart, rule, now) : undefined;
}

/**
 * Gives back one attempt `consumeRateLimit` counted. Limits on failures count every attempt before
 * it is judged (so simultaneous guesses cannot all slip under the limit) and refund the ones that
 * turn out right.
 */
export async function refundRateLimit(ctx: IdentityContext, rule: RateRule): Promise<void> {
  await ctx.db
    .update(rateLimits)
    .set({ count: sql`greatest(${rateLimits.count} - 1, 0)` })
    .where(eq(rateLimits.key, rule.key));
}

const scaled = (ctx: IdentityContext, rule: RateRule): RateRule => ({ ...rule, limit: Math.max(1, Math.round(rule.limit * ctx.config.rateLimitMultiplier)) });

const retryAfter = (windowStart: Date, rule: RateRule, now: Date) =>
  Math.max(1, Math.ceil((windowStart.getTime() + rule.windowSeconds * 1000 - now.getTime()) / 1000));

import { z } from 'zod';

/** The longest window GET /bff/usage/daily covers, in UTC days. */
export const maxUsageDays = 90;

/** One key's spend, named as a publishable or a secret key (never both), or every key's. */
export const usageDailyQuerySchema = z
  .object({
    publishableKeyId: z.uuid({ error: 'publishableKeyId must be a key id' }).optional(),
    secretKeyId: z.uuid({ error: 'secretKeyId must be a key id' }).optional(),
    days: z.coerce
      .number({ error: 'days must be a number' })
      .int('days must be a whole number')
      .min(1, 'days must be at least 1')
      .max(maxUsageDays, `days must be at most ${maxUsageDays}`)
      .default(30),
  })
  .refine((query) => query.publishableKeyId === undefined || query.secretKeyId === undefined, {
    error: 'Ask for publishableKeyId or for secretKeyId, not both',
    path: ['secretKeyId'],
  });

/** One UTC day of the window; costs in dollars. */
export const usageDaySchema = z.object({
  /** YYYY-MM-DD, a UTC calendar day. */
  day: z.string(),
  /** Every model of the window, 0 when it had no calls that day. */
  costByModel: z.record(z.string(), z.number()),
  /** Every key of the window (`keys`), by id, 0 when it had no calls that day. */
  costByKey: z.record(z.string(), z.number()),
  cost: z.number(),
  calls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  /** What was spent from the start of this day's UTC month up to the end of this day. */
  monthToDateCost: z.number(),
});

export const usageTotalsSchema = z.object({
  cost: z.number(),
  calls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
});

/**
 * A key with usage in the window. Deleted keys are listed too (their history stays theirs), with
 * `deleted` set; the name is usage data, shown to every role that sees usage.
 */
export const usageKeySchema = z.object({ id: z.string(), name: z.string(), deleted: z.boolean() });

/** GET /bff/usage/daily: the organisation's (or one key's) spend per UTC day, by model and by key. */
export const usageDailySchema = z.object({
  /** Oldest first, today last; every day of the window, days without usage included. */
  days: z.array(usageDaySchema),
  /** The models with usage in the window, by name. */
  models: z.array(z.string()),
  /** The keys with usage in the window, by name (one key when the query names it). */
  keys: z.array(usageKeySchema),
  totals: usageTotalsSchema,
  /** Present when the query names a publishable key. */
  publishableKey: z.object({ id: z.string(), name: z.string(), monthlyBudget: z.number() }).optional(),
  /** Present when the query names a secret key. */
  secretKey: z.object({ id: z.string(), name: z.string(), monthlyBudget: z.number() }).optional(),
});

export type UsageDaily = z.infer<typeof usageDailySchema>;
export type UsageDay = z.infer<typeof usageDaySchema>;
export type UsageKey = z.infer<typeof usageKeySchema>;

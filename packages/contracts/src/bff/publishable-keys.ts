import { z } from 'zod';
import { validationMessages as m } from '../common/messages.js';

/** The largest monthly budget a key can have, in dollars. */
export const maxKeyBudget = 1_000_000;

const originPattern = /^https?:\/\/[^\s/?#]+\/?$/i;

/** An allowed origin: an http(s) origin (scheme, host, optional port; no path) or the literal `localhost`. */
export const isAllowedOrigin = (value: string) => value === 'localhost' || (originPattern.test(value) && URL.canParse(value));

/** Blank entries are dropped, origins lower-cased and de-duplicated, in their first order. */
export const normalizeOrigins = (origins: string[]) => [
  ...new Set(origins.map((origin) => origin.trim()).filter(Boolean).map((origin) => (origin === 'localhost' ? origin : new URL(origin).origin))),
];

/** The most output tokens a key may allow one call, and the most requests per minute a per-address cap may allow. */
export const maxOutputTokensPerCallLimit = 1_000_000;
export const maxClientRequestsPerMinute = 100_000;

/** What a new key allows one client address when the form leaves it (issue #18: a copied key's worst case is small by default). */
export const defaultPerClientLimits = { requestsPerMinute: 30, spendPerDay: 1 } as const;

const wholeNumberOrNull = (max: number) =>
  z
    .number({ error: 'Enter a whole number, or leave it empty for no limit' })
    .int('Enter a whole number, or leave it empty for no limit')
    .min(1, m.min(1))
    .max(max, m.max(max))
    .nullable();

/**
 * Per-key controls (issue #18), optional on create and update: on create an absent one takes its
 * default, on update it stays as it is (each field of perClientLimits alike). allowedModels null:
 * every priced model; the api refuses a model not on its price list. spendPerDay: dollars one
 * client address may spend per UTC day.
 */
const keyControls = {
  allowedModels: z
    .array(z.string({ error: 'Each model must be a model id' }).trim().min(1, 'Each model must be a model id').max(200), { error: 'allowedModels must be a list of model ids, or null for every priced model' })
    .min(1, 'Choose at least one model, or none (null) for every priced model')
    .max(100, 'At most 100 models')
    .transform((models) => [...new Set(models)])
    .nullable()
    .optional(),
  maxOutputTokensPerCall: wholeNumberOrNull(maxOutputTokensPerCallLimit).optional(),
  perClientLimits: z
    .object(
      {
        requestsPerMinute: wholeNumberOrNull(maxClientRequestsPerMinute).optional(),
        spendPerDay: z
          .number({ error: 'Enter an amount in dollars, or leave it empty for no limit' })
          .finite('Enter an amount in dollars, or leave it empty for no limit')
          .min(0.01, m.min(0.01))
          .max(maxKeyBudget, m.max(maxKeyBudget))
          .nullable()
          .optional(),
      },
      { error: 'perClientLimits must be an object with requestsPerMinute and spendPerDay' },
    )
    .optional(),
};

/** POST and PUT /bff/publishable-keys (spec §7), with the per-key controls. */
export const publishableKeyInputSchema = z.object({
  name: z
    .string({ error: m.required })
    .transform((value) => value.trim())
    .pipe(z.string().min(1, m.required).max(100, m.maxLength(100))),
  budget: z.number({ error: m.required }).finite(m.required).min(0, m.min(0)).max(maxKeyBudget, m.max(maxKeyBudget)),
  budgetType: z.literal('monthly', { error: 'budgetType must be monthly' }).default('monthly'),
  allowedOrigins: z
    .array(z.string({ error: m.origins }).max(2048), { error: m.origins })
    .max(100, 'At most 100 allowed origins')
    .default([])
    .refine((origins) => origins.every((origin) => !origin.trim() || isAllowedOrigin(origin.trim())), m.origins)
    .transform(normalizeOrigins),
  ...keyControls,
});

export type PublishableKeyInput = z.input<typeof publishableKeyInputSchema>;
/** The input once validated: origins normalised, models de-duplicated, budgetType set. */
export type PublishableKeyFields = z.output<typeof publishableKeyInputSchema>;

export const publishableKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  value: z.string(),
  /** Dollars per period. */
  spendLimitAmount: z.number(),
  spendLimitPeriodType: z.literal('monthly'),
  /** Dollars spent in the current UTC calendar month. */
  currentPeriodSpendAmount: z.number(),
  allowedOrigins: z.array(z.string()),
  /** After a roll with an overlap: until when (exclusive) the replaced value still authenticates. Absent once it stopped. */
  previousValueExpiresAt: z.string().optional(),
  /** The models the key may call; null: every priced model. */
  allowedModels: z.array(z.string()).nullable(),
  /** The most output tokens one call may ask for; null: the model's own maximum. */
  maxOutputTokensPerCall: z.number().nullable(),
  /** What one client address may do with the key: requests per minute, dollars per UTC day; null: no cap. */
  perClientLimits: z.object({ requestsPerMinute: z.number().nullable(), spendPerDay: z.number().nullable() }),
  /** Read-only: the most a copied key can spend today, in dollars (what its budget has left this month). */
  worstCaseDailySpend: z.number(),
});

export type PublishableKey = z.infer<typeof publishableKeySchema>;

export const publishableKeyListSchema = z.object({ publishableKeys: z.array(publishableKeySchema) });
export const publishableKeyParamsSchema = z.object({ publishableKeyId: z.uuid({ error: 'Unknown publishable key' }) });

/** The longest a rolled key's replaced value may keep working, in hours. */
export const maxRollOverlapHours = 24;

/** POST /bff/publishable-keys/{publishableKeyId}/roll: whole hours the replaced value keeps working (0 stops it at once). */
export const publishableKeyRollSchema = z.object({
  overlapHours: z
    .number({ error: m.required })
    .int('overlapHours must be a whole number of hours')
    .min(0, m.min(0))
    .max(maxRollOverlapHours, m.max(maxRollOverlapHours)),
});

export type PublishableKeyRoll = z.infer<typeof publishableKeyRollSchema>;

/** GET /bff/models: the priced models a key may be allowed, with their prices in dollars per 1M tokens. */
export const pricedModelListSchema = z.object({
  models: z.array(z.object({ id: z.string(), inputPerMillion: z.number(), outputPerMillion: z.number(), maxOutputTokens: z.number() })),
});

export type PricedModel = z.infer<typeof pricedModelListSchema>['models'][number];

/** The most client addresses one key may block. */
export const maxBlocksPerKey = 1000;

/**
 * POST /bff/publishable-keys/{publishableKeyId}/blocks: a client address whose calls with the key
 * are refused at once, on every api instance. An IPv6 address blocks its /64, which the per-address
 * caps count as one client.
 */
export const keyBlockInputSchema = z.object({
  clientAddress: z
    .string({ error: 'Enter an IPv4 or IPv6 address' })
    .trim()
    .pipe(z.union([z.ipv4(), z.ipv6()], { error: 'Enter an IPv4 or IPv6 address' })),
});

export const keyBlockSchema = z.object({
  id: z.string(),
  /** The client as the gateway counts it: an IPv4 address, or an IPv6 /64 (`2001:db8:1:2::/64`). */
  clientAddress: z.string(),
  createdAt: z.string(),
});

export type KeyBlock = z.infer<typeof keyBlockSchema>;

export const keyBlockListSchema = z.object({ blocks: z.array(keyBlockSchema) });
export const keyBlockParamsSchema = publishableKeyParamsSchema.extend({ blockId: z.uuid({ error: 'Unknown block' }) });

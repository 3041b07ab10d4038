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

/** POST and PUT /bff/publishable-keys (spec §7). */
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
});

export type PublishableKeyInput = z.input<typeof publishableKeyInputSchema>;

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

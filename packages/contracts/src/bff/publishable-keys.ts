import { z } from 'zod';
import { validationMessages as m } from '../common/messages.js';
import { roleSchema } from './members.js';

/** The largest monthly budget a key can have, in dollars. */
export const maxKeyBudget = 1_000_000;

const originPattern = /^https?:\/\/[^\s/?#]+\/?$/i;

/** An allowed origin: an http(s) origin (scheme, host, optional port; no path) or the literal `localhost`. */
export const isAllowedOrigin = (value: string) => value === 'localhost' || (originPattern.test(value) && URL.canParse(value));

/** Blank entries are dropped, origins lower-cased and de-duplicated, in their first order. */
export const normalizeOrigins = (origins: string[]) => [
  ...new Set(
    origins
      .map((origin) => origin.trim())
      .filter(Boolean)
      .map((origin) => (origin === 'localhost' ? origin : new URL(origin).origin)),
  ),
];

/** The most output tokens a key may allow one call, and the most requests per minute a per-address cap may allow. */
export const maxOutputTokensPerCallLimit = 1_000_000;
export const maxClientRequestsPerMinute = 100_000;

/** The longest a key may keep a cached answer, in seconds (a day). */
export const maxResponseCacheSeconds = 86_400;

/** What a new key allows one client address when the form leaves it (issue #18: a copied key's worst case is small by default). */
export const defaultPerClientLimits = { requestsPerMinute: 30, spendPerDay: 1 } as const;

const dollarsOrNull = z
  .number({ error: 'Enter an amount in dollars, or leave it empty for no limit' })
  .finite('Enter an amount in dollars, or leave it empty for no limit')
  .min(0.01, m.min(0.01))
  .max(maxKeyBudget, m.max(maxKeyBudget))
  .nullable();

/** The longest issuer, audience or JWKS URL an end-user token setting may have. */
const maxTokenSettingLength = 2048;

/**
 * Where the gateway fetches the signing keys of end-user tokens: an https URL (http only for
 * localhost, for development).
 */
export const isJwksUrl = (value: string) => {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === 'https:' || (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname));
};

const tokenSetting = (label: string) =>
  z
    .string({ error: `Enter the ${label}` })
    .trim()
    .min(1, `Enter the ${label}`)
    .max(maxTokenSettingLength, m.maxLength(maxTokenSettingLength));

const wholeNumberOrNull = (max: number) =>
  z
    .number({ error: 'Enter a whole number, or leave it empty for no limit' })
    .int('Enter a whole number, or leave it empty for no limit')
    .min(1, m.min(1))
    .max(max, m.max(max))
    .nullable();

/**
 * Per-key controls (issue #18), optional on create and update: on create an absent one takes its
 * default, on update it stays as it is (each field of perClientLimits and perEndUserLimits alike).
 * allowedModels null: every priced model; the api refuses a model not on its price list.
 * spendPerDay and spendPerMonth: dollars per UTC day and calendar month. endUserTokens: the key
 * requires a token of the customer's sign-in provider (a JWT, RS256 or ES256) whose `sub` is the
 * end user; null: none, each client address is an anonymous end user. responseCacheSeconds: for how
 * long a non-streamed answer answers the same request with the key again, free; null: no cache.
 * responseCacheShared: whether a cached answer answers other end users too (false by default: each
 * end user only from their own requests, since a shared answer tells one what another asked).
 */
const keyControls = {
  allowedModels: z
    .array(z.string({ error: 'Each model must be a model id' }).trim().min(1, 'Each model must be a model id').max(200), {
      error: 'allowedModels must be a list of model ids, or null for every priced model',
    })
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
        spendPerDay: dollarsOrNull.optional(),
      },
      { error: 'perClientLimits must be an object with requestsPerMinute and spendPerDay' },
    )
    .optional(),
  perEndUserLimits: z
    .object(
      {
        requestsPerMinute: wholeNumberOrNull(maxClientRequestsPerMinute).optional(),
        spendPerDay: dollarsOrNull.optional(),
        spendPerMonth: dollarsOrNull.optional(),
      },
      { error: 'perEndUserLimits must be an object with requestsPerMinute, spendPerDay and spendPerMonth' },
    )
    .optional(),
  endUserTokens: z
    .object(
      {
        issuer: tokenSetting("issuer (the iss of your sign-in provider's tokens)"),
        audience: tokenSetting("audience (the aud of your sign-in provider's tokens)"),
        jwksUrl: tokenSetting('JWKS URL').refine(isJwksUrl, "Enter an https URL of the provider's signing keys (JWKS)"),
      },
      { error: 'endUserTokens must be an object with issuer, audience and jwksUrl, or null' },
    )
    .nullable()
    .optional(),
  responseCacheSeconds: z
    .number({ error: 'Enter a number of seconds, or leave it empty for no cache' })
    .int('Enter a whole number of seconds, or leave it empty for no cache')
    .min(1, m.min(1))
    .max(maxResponseCacheSeconds, m.max(maxResponseCacheSeconds))
    .nullable()
    .optional(),
  responseCacheShared: z.boolean({ error: 'responseCacheShared must be true or false' }).optional(),
};

/** A key name's length after trimming: the console's form and the api apply this one rule. */
const keyNameLength = { min: 3, max: 100 } as const;

/** POST and PUT /bff/publishable-keys (spec §7), with the per-key controls. */
export const publishableKeyInputSchema = z.object({
  name: z
    .string({ error: m.required })
    .transform((value) => value.trim())
    .pipe(
      z
        .string()
        // A blank name is only "required", not also too short.
        .min(1, { error: m.required, abort: true })
        .min(keyNameLength.min, m.minLength(keyNameLength.min))
        .max(keyNameLength.max, m.maxLength(keyNameLength.max)),
    ),
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

/** Who was last shown a key's value, and their role in the key's organisation now (null: no longer a member). */
export const keyMakerSchema = z.object({ personId: z.string(), email: z.string(), role: roleSchema.nullable() });

export type KeyMaker = z.infer<typeof keyMakerSchema>;

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
  /**
   * What one end user (a token's `sub`, or an address when the key takes no tokens) may do:
   * requests per minute, dollars per UTC day and month; null: no cap.
   */
  perEndUserLimits: z.object({ requestsPerMinute: z.number().nullable(), spendPerDay: z.number().nullable(), spendPerMonth: z.number().nullable() }),
  /** The sign-in provider whose tokens the key requires (Meterway-User-Token), or null. */
  endUserTokens: z.object({ issuer: z.string(), audience: z.string(), jwksUrl: z.string() }).nullable(),
  /** For how many seconds a non-streamed answer answers the same request again, charged nothing; null: no cache. */
  responseCacheSeconds: z.number().nullable(),
  /**
   * Whether a cached answer answers every end user of the key: one may then receive what another's
   * request produced, and so learn that someone asked it. False: each end user's own answers only.
   */
  responseCacheShared: z.boolean(),
  /** Read-only: the most a copied key can spend today, in dollars (what its budget has left this month). */
  worstCaseDailySpend: z.number(),
  /**
   * Who was last shown the key's value (made it, or rolled it since), with their role now; null for
   * a key made before makers were recorded.
   */
  madeBy: keyMakerSchema.nullable(),
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

/** The longest reason a person may give for deleting a key (the same as a feedback's description). */
export const maxKeyDeletionReasonLength = 5000;

/**
 * DELETE /bff/publishable-keys/{publishableKeyId}: an optional JSON body with the reason the person
 * gives, recorded with the deletion in the audit log (blank: none). The body may be left out. A
 * body rather than a query parameter: a reason this long does not fit every URL.
 */
export const publishableKeyDeletionSchema = z
  .object({
    reason: z
      .string({ error: 'reason must be text' })
      .transform((value) => value.trim())
      .pipe(z.string().max(maxKeyDeletionReasonLength, m.maxLength(maxKeyDeletionReasonLength)))
      .optional(),
  })
  // Fastify hands a request without a body to validation as null.
  .nullish();

export type PublishableKeyDeletion = z.input<typeof publishableKeyDeletionSchema>;

/**
 * GET /bff/models: the priced models a key may be allowed, with their prices as charged in dollars
 * per 1M tokens (cached input null when the model has none), and the price list's version: a price
 * change applies to new calls only, each call keeps the version it was priced with.
 */
export const pricedModelListSchema = z.object({
  priceListVersion: z.string(),
  models: z.array(
    z.object({
      id: z.string(),
      inputPerMillion: z.number(),
      cachedInputPerMillion: z.number().nullable(),
      outputPerMillion: z.number(),
      maxOutputTokens: z.number(),
      acceptsImages: z.boolean(),
    }),
  ),
});

export type PriceList = z.infer<typeof pricedModelListSchema>;
export type PricedModel = PriceList['models'][number];

/** The most client addresses and end users one key may block. */
export const maxBlocksPerKey = 1000;

/** The longest end-user id (a token's `sub`) a block may name. */
export const maxEndUserLength = 255;

/**
 * POST /bff/publishable-keys/{publishableKeyId}/blocks: a client address or an end user whose
 * calls with the key are refused at once, on every api instance. An IPv6 address blocks its /64,
 * which the per-address caps count as one client; the /64 itself (`2001:db8:1:2::/64`, as the
 * callers list shows it) is taken too.
 */
export const keyBlockInputSchema = z
  .object({
    clientAddress: z
      .string({ error: 'Enter an IPv4 or IPv6 address' })
      .trim()
      .pipe(z.union([z.ipv4(), z.ipv6(), z.cidrv6().regex(/\/64$/)], { error: 'Enter an IPv4 or IPv6 address' }))
      .optional(),
    endUser: z
      .string({ error: 'Enter the end user (the sub of their token)' })
      .trim()
      .min(1, 'Enter the end user (the sub of their token)')
      .max(maxEndUserLength, m.maxLength(maxEndUserLength))
      .optional(),
  })
  .refine((input) => (input.clientAddress === undefined) !== (input.endUser === undefined), 'Send either a clientAddress or an endUser to block');

export type KeyBlockInput = z.input<typeof keyBlockInputSchema>;

export const keyBlockSchema = z.object({
  id: z.string(),
  /** The client as the gateway counts it: an IPv4 address, or an IPv6 /64 (`2001:db8:1:2::/64`). */
  clientAddress: z.string().optional(),
  /** An end user: the `sub` of the key's end-user tokens. */
  endUser: z.string().optional(),
  createdAt: z.string(),
});

export type KeyBlock = z.infer<typeof keyBlockSchema>;

export const keyBlockListSchema = z.object({ blocks: z.array(keyBlockSchema) });
export const keyBlockParamsSchema = publishableKeyParamsSchema.extend({ blockId: z.uuid({ error: 'Unknown block' }) });

/** How many callers of each kind GET …/callers lists: the top by calls and the top by spend, together. */
export const topCallersPerList = 20;

const callerTotals = { calls: z.number().int(), spend: z.number() };

/**
 * GET /bff/publishable-keys/{publishableKeyId}/callers: the last 24 hours' callers of the key, the
 * top client addresses and end users by calls and by spend (spend in dollars), highest spend first,
 * each with whether it is blocked now.
 */
export const keyCallersSchema = z.object({
  since: z.string(),
  clientAddresses: z.array(z.object({ clientAddress: z.string(), ...callerTotals, blocked: z.boolean() })),
  endUsers: z.array(z.object({ endUser: z.string(), ...callerTotals, blocked: z.boolean() })),
});

export type KeyCallers = z.infer<typeof keyCallersSchema>;

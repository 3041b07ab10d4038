import { z } from 'zod';
import { publishableKeyInputSchema, publishableKeySchema } from './publishable-keys.js';

/** What a secret key may do: call the gateway (`gateway`), or the developer API under /v1/organization (`admin`). */
export const secretKeyScopes = ['gateway', 'admin'] as const;
export type SecretKeyScope = (typeof secretKeyScopes)[number];

/** How many characters of a secret key the console shows to recognise it by (`sk_live_` and four more). */
export const secretKeyPrefixLength = 12;

/**
 * POST /bff/secret-keys: a publishable key's form without origins (a secret key is used from
 * servers, never from a page), plus its scope. Per-address caps default to none: a server calls
 * from one address.
 */
export const secretKeyInputSchema = publishableKeyInputSchema.omit({ allowedOrigins: true }).extend({
  scope: z.enum(secretKeyScopes, { error: 'scope must be gateway or admin' }).default('gateway'),
});

/** PUT /bff/secret-keys/{secretKeyId}: the same form; a key's scope never changes (create another key). */
export const secretKeyUpdateSchema = publishableKeyInputSchema.omit({ allowedOrigins: true });

export type SecretKeyInput = z.input<typeof secretKeyInputSchema>;
export type SecretKeyFields = z.output<typeof secretKeyInputSchema>;
export type SecretKeyUpdateFields = z.output<typeof secretKeyUpdateSchema>;

/**
 * A secret key: a publishable key's JSON without origins, plus its scope and prefix. `value`, the
 * key itself, only in the answers to create and roll: it is stored as a hash and never shown again.
 */
export const secretKeySchema = publishableKeySchema.omit({ value: true, allowedOrigins: true }).extend({
  scope: z.enum(secretKeyScopes),
  /** The key's first characters (`sk_live_AbCd`), to recognise it by. */
  prefix: z.string(),
  value: z.string().optional(),
});

export type SecretKey = z.infer<typeof secretKeySchema>;

export const secretKeyListSchema = z.object({ secretKeys: z.array(secretKeySchema) });
export const secretKeyParamsSchema = z.object({ secretKeyId: z.uuid({ error: 'Unknown secret key' }) });

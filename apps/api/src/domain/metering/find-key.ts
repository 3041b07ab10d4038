import type { Database } from '@meterway/db';
import { and, eq, gt, isNull, or, type SQLWrapper, sql } from 'drizzle-orm';
import { keyValues, publishableKeys } from '../../db/schema/index.js';

export type GatewayKey = typeof publishableKeys.$inferSelect;

/** A publishable key's value, or a secret key's stored hash (secret-key-hash.ts): anything else matches no key. */
const storedValuePattern = /^(pk_live_[0-9A-Za-z]{24,64}|hmac-sha256:[0-9A-Za-z_-]{43})$/;

/** The key's value (a secret key's: its hash) is this, or its previous value after a roll, while that still works at `now`. */
export const authenticatesWith = (value: SQLWrapper | string, now: SQLWrapper | Date) =>
  or(eq(publishableKeys.value, value), and(eq(publishableKeys.previousValue, value), gt(publishableKeys.previousValueExpiresAt, now)));

/** Joins a key to the key_values directory's entry for a value (a secret key's: its hash): the key that value ever belonged to. */
export const ownsValue = (value: SQLWrapper | string) =>
  and(eq(keyValues.value, value), eq(keyValues.organizationId, publishableKeys.organizationId), eq(keyValues.publishableKeyId, publishableKeys.id));

/**
 * Finds the live key with this value (a secret key's: its hash), or whose previous value (after a roll) still works at `now`;
 * a deleted key never authenticates again. One statement, the value's directory entry then its key
 * by primary key, built once: every gateway call looks its key up, and building the query each
 * time costs four times as much. Its statement is unnamed, parsed by the server on each run: a
 * named one exists only on the server connection that prepared it, and a transaction pooler
 * (PgBouncer) hands each transaction whichever connection is free.
 */
export function keyFinder(db: Database): (value: string, now?: Date) => Promise<GatewayKey | undefined> {
  const lookup = db
    .select({ key: publishableKeys })
    .from(publishableKeys)
    .innerJoin(keyValues, ownsValue(sql.placeholder('value')))
    .where(and(authenticatesWith(sql.placeholder('value'), sql.placeholder('now')), isNull(publishableKeys.deletedAt)))
    .limit(1)
    .prepare('');
  return async (value, now = new Date()) => {
    if (!storedValuePattern.test(value)) return undefined;
    const [found] = await lookup.execute({ value, now });
    return found?.key;
  };
}

/** A key allows every priced model unless it names the ones it allows. */
export const modelAllowed = (key: Pick<GatewayKey, 'allowedModels'>, model: string): boolean => key.allowedModels === null || key.allowedModels.includes(model);

/** The key's owner blocked this client (clientOf's form). */
export const clientBlocked = (key: Pick<GatewayKey, 'blocks'>, client: string): boolean => key.blocks.some((block) => block.client === client);

/** The key's owner blocked this end user (a token's `sub`). */
export const endUserBlocked = (key: Pick<GatewayKey, 'blocks'>, endUser: string): boolean => key.blocks.some((block) => block.endUser === endUser);

const localhostOrigin = /^https?:\/\/localhost(:\d{1,5})?$/;

/**
 * Origin must equal an allowed origin exactly (scheme, host, port); the literal `localhost` entry
 * allows http and https localhost on any port. A missing or `null` Origin never passes.
 */
export function originAllowed(allowedOrigins: readonly string[], origin: string | undefined): boolean {
  if (!origin || origin === 'null') return false;
  const normalised = origin.toLowerCase();
  return allowedOrigins.some((allowed) => (allowed === 'localhost' ? localhostOrigin.test(normalised) : allowed === normalised));
}

import type { Database } from '@meterway/db';
import { and, eq, isNull } from 'drizzle-orm';
import { publishableKeys } from '../../db/schema/index.js';

export type GatewayKey = typeof publishableKeys.$inferSelect;

/** The live key with this value; a deleted key never authenticates again. */
export async function findKey(db: Database, value: string): Promise<GatewayKey | undefined> {
  if (!/^pk_live_[0-9A-Za-z]{24,64}$/.test(value)) return undefined;
  const [key] = await db
    .select()
    .from(publishableKeys)
    .where(and(eq(publishableKeys.value, value), isNull(publishableKeys.deletedAt)))
    .limit(1);
  return key;
}

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

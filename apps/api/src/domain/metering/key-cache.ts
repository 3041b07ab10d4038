import type { Database } from '@meterway/db';
import type { GatewayKey } from './find-key.js';
import { lookUpKey } from './look-up-key.js';
import { perDatabase } from './per-database.js';

const cacheOf = perDatabase(() => new Map<string, GatewayKey>());
const maxKeys = 10_000;

/** The key with this value as the database has it now (lookUpKey), remembered for cachedKey. */
export async function freshKey(db: Database, value: string): Promise<GatewayKey | undefined> {
  const key = await lookUpKey(db, value);
  const cache = cacheOf(db);
  if (!key) {
    cache.delete(value);
    return undefined;
  }
  if (cache.size >= maxKeys && !cache.has(value)) cache.clear();
  cache.set(value, key);
  return key;
}

/**
 * The key with this value as this instance last read it. Only for a call that admission will
 * check: app.admit_calls refuses a key deleted, rolled past the value presented or whose origins
 * changed since (StaleKey), and the caller reads it again with freshKey; a hold reserved ahead
 * (hold-stock.ts) is only used while such a check is under stockTrustMs old. A value never seen,
 * or one that did not authenticate, is always read from the database.
 */
export function cachedKey(db: Database, value: string): Promise<GatewayKey | undefined> {
  const key = cacheOf(db).get(value);
  return key ? Promise.resolve(key) : freshKey(db, value);
}

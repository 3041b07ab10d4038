import type { Database } from '@meterway/db';
import { LRUCache } from 'lru-cache';
import type { GatewayKey } from './find-key.js';
import { keyLookup } from './look-up-key.js';

const maxKeys = 10_000;

export type KeyCache = {
  /** The key with this value as the database has it now, remembered for `cached`. */
  fresh: (value: string) => Promise<GatewayKey | undefined>;
  /**
   * The key with this value as this instance last read it. Only for a call that admission will
   * check: app.admit_calls refuses a key deleted, rolled past the value presented or edited
   * since (StaleKey), and the caller reads it again with `fresh`; a hold reserved ahead
   * (hold-stock.ts) is only used while such a check is under stockTrustMs old. A value never seen,
   * or one that did not authenticate, is always read from the database.
   */
  cached: (value: string) => Promise<GatewayKey | undefined>;
  /** This instance holds a key with this value (read without looking it up). */
  known: (value: string) => boolean;
};

export function createKeyCache(db: Database): KeyCache {
  const lookUp = keyLookup(db);
  const keys = new LRUCache<string, GatewayKey>({ max: maxKeys });
  async function fresh(value: string) {
    const key = await lookUp(value);
    if (!key) {
      keys.delete(value);
      return undefined;
    }
    keys.set(value, key);
    return key;
  }
  return {
    fresh,
    cached: (value) => {
      const key = keys.get(value);
      return key ? Promise.resolve(key) : fresh(value);
    },
    known: (value) => keys.has(value),
  };
}

import type { Database } from '@meterway/db';
import { batchBy } from './batch.js';
import { findKey, type GatewayKey } from './find-key.js';

const lookups = new WeakMap<Database, (value: string) => Promise<GatewayKey | undefined>>();

/**
 * findKey, shared by concurrent calls with the same key: calls that arrive while a lookup of their
 * key is in flight are answered together by the next one. Each call is still answered by a query
 * that started after it arrived, so a key deleted or rolled before a call is never let in by it;
 * under load one query serves dozens of calls instead of one each.
 */
export function lookUpKey(db: Database, value: string): Promise<GatewayKey | undefined> {
  let lookUp = lookups.get(db);
  if (!lookUp) {
    lookUp = batchBy(
      (keyValue: string) => keyValue,
      async (values) => {
        const key = await findKey(db, values[0]!);
        return values.map(() => ({ ok: true, value: key }));
      },
    );
    lookups.set(db, lookUp);
  }
  return lookUp(value);
}

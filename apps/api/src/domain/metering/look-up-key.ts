import type { Database } from '@meterway/db';
import { batchBy } from './batch.js';
import { findKey, type GatewayKey } from './find-key.js';
import { perDatabase } from './per-database.js';


/**
 * findKey, shared by concurrent calls with the same key: calls that arrive while a lookup of their
 * key is in flight are answered together by the next one. Each call is still answered by a query
 * that started after it arrived, so a key deleted or rolled before a call is never let in by it;
 * under load one query serves dozens of calls instead of one each.
 */
export function lookUpKey(db: Database, value: string): Promise<GatewayKey | undefined> {
  return lookUpFor(db)(value);
}

const lookUpFor = perDatabase((db) =>
  batchBy(
    (keyValue: string) => keyValue,
    async (values) => {
      const key = await findKey(db, values[0]!);
      return values.map(() => ({ ok: true as const, value: key }));
    },
  ),
);

import type { Database } from '@meterway/db';
import { batchBy } from './batch.js';
import { type GatewayKey, keyFinder } from './find-key.js';

/**
 * Looks keys up, sharing one lookup among concurrent calls with the same key: calls that arrive
 * while a lookup of their key is in flight are answered together by the next one. Each call is
 * still answered by a query that started after it arrived, so a key deleted or rolled before a
 * call is never let in by it; under load one query serves dozens of calls instead of one each.
 */
export function keyLookup(db: Database): (value: string) => Promise<GatewayKey | undefined> {
  const findKey = keyFinder(db);
  return batchBy(
    (value: string) => value,
    async (values) => {
      const key = await findKey(values[0]!);
      return values.map(() => ({ ok: true as const, value: key }));
    },
  );
}

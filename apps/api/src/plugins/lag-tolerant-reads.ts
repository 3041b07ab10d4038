import type { Database } from '@meterway/db';
import { isDatabaseUnavailable } from '@meterway/service';
import type { schema } from '../db/index.js';

/**
 * Runs a read that may see data a moment old (the usage list, the chart, the CSV export, the
 * admin lists) on the replica (DATABASE_REPLICA_URL), or on the primary when there is none.
 * Nothing that decides money reads through it. A replica that cannot be reached sends the read to
 * the primary, told to `onFallback`: a replica down costs the primary that load, not the page.
 */
export type LagTolerantReads = <T>(read: (db: Database<typeof schema>) => Promise<T>) => Promise<T>;

export function lagTolerantReads(
  primary: Database<typeof schema>,
  replica: Database<typeof schema> | undefined,
  onFallback: (error: unknown) => void,
): LagTolerantReads {
  if (!replica) return (read) => read(primary);
  return async (read) => {
    try {
      return await read(replica);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      onFallback(error);
      return read(primary);
    }
  };
}

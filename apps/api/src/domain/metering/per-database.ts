import type { Database } from '@meterway/db';

/**
 * What this instance keeps for one database handle (a prepared statement, a batcher, a cache, work
 * in flight), made on first use; tests that open several databases in one process keep them apart.
 */
export function perDatabase<T>(create: (db: Database) => T): (db: Database) => T {
  const values = new WeakMap<Database, T>();
  return (db) => {
    let value = values.get(db);
    if (value === undefined) values.set(db, (value = create(db)));
    return value;
  };
}

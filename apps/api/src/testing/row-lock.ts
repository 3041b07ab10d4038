import type { Database } from '@meterway/db';
import type { SQL } from 'drizzle-orm';

/**
 * Locks the rows a `select … for update` names, in a transaction of its own (Postgres: a connection
 * of its own), until the returned function is called: what the gateway does meanwhile must not need them.
 */
export async function lockRows(db: Database, selectForUpdate: SQL): Promise<() => void> {
  let unlock = () => {};
  const unlocked = new Promise<void>((resolve) => (unlock = resolve));
  await new Promise<void>((locked) => {
    void db.transaction(async (tx) => {
      await tx.execute(selectForUpdate);
      locked();
      await unlocked;
    });
  });
  return unlock;
}

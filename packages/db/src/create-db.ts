import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { lockDataDir } from './data-dir-lock.js';
import { type Migrations, migratePgliteClient, migratePool } from './migrate.js';

export type Schema = Record<string, unknown>;

/** The query surface both drivers share; domain code depends on this, never on a driver. */
export type Database<TSchema extends Schema = Schema> = PgDatabase<PgQueryResultHKT, TSchema>;

export type DbHandle<TSchema extends Schema = Schema> = {
  db: Database<TSchema>;
  kind: 'postgres' | 'pglite';
  /** node-postgres' pool, for its counts (metrics); PGlite has none. */
  pool?: { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number };
  /** Resolves when the database answers a query; rejects otherwise. */
  ping: () => Promise<void>;
  /** Applies the pending migrations, then every function file again; safe to call from several instances at once. */
  migrate: (migrations: Migrations) => Promise<void>;
  close: () => Promise<void>;
};

export type CreateDbOptions<TSchema extends Schema> = {
  schema: TSchema;
  /** Postgres connection string; when absent the embedded PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite data root; the service's data lives in `<dataDir>/<service>`. */
  dataDir: string;
  service: string;
  poolSize?: number;
};

export async function createDb<TSchema extends Schema>(options: CreateDbOptions<TSchema>): Promise<DbHandle<TSchema>> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    // An idle client losing its connection (a Postgres restart) must not crash the process.
    pool.on('error', () => {});
    return fromPool(pool, options.schema);
  }
  const dir = join(options.dataDir, options.service);
  mkdirSync(dir, { recursive: true });
  const unlock = lockDataDir(dir);
  try {
    const client = await PGlite.create({ dataDir: dir });
    return fromPglite(client, options.schema, unlock);
  } catch (error) {
    unlock();
    throw error;
  }
}

export function fromPool<TSchema extends Schema>(pool: pg.Pool, schema: TSchema): DbHandle<TSchema> {
  dropLostClients(pool);
  const db = drizzlePg({ client: pool, schema });
  let closing: Promise<void> | undefined;
  return {
    db,
    kind: 'postgres',
    pool,
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    migrate: (migrations) => migratePool(pool, migrations),
    // Closing twice (a test that closes early, then its cleanup) is harmless.
    close: () => (closing ??= pool.end()),
  };
}

/**
 * A connection lost while its client is checked out (Postgres crashing under a transaction) fails
 * the query using it, but pg also emits it as an 'error' event on the client, which would crash the
 * process unheard; and drizzle's transaction() never hands its client back when `begin` is what
 * failed, so every such crash would leak a pool slot until none is left. So the moment a checked-out
 * client's connection is lost, it goes back to the pool (which drops it, as it is broken), and its
 * holder's own release later does nothing.
 */
function dropLostClients(pool: pg.Pool) {
  const inUse = new Set<pg.PoolClient>();
  pool.on('acquire', (client) => inUse.add(client));
  pool.on('release', (_error, client) => inUse.delete(client));
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      // An idle client is the pool's own to drop.
      if (!inUse.has(client)) return;
      client.release(error);
      client.release = () => {};
    });
  });
}

export function fromPglite<TSchema extends Schema>(client: PGlite, schema: TSchema, onClose: () => void = () => {}): DbHandle<TSchema> {
  const db = drizzlePglite({ client, schema });
  return {
    db,
    kind: 'pglite',
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    migrate: (migrations) => migratePgliteClient(client, migrations),
    close: async () => {
      try {
        if (!client.closed) await client.close();
      } finally {
        onClose();
      }
    },
  };
}

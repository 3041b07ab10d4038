import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type pg from 'pg';

export type Migrations = {
  /** Folder written by `drizzle-kit generate` (SQL files and meta/_journal.json). */
  folder: string;
  /**
   * The bookkeeping table, one per service: services may share a Postgres database and drizzle's
   * migrator must not see another service's history. It lives in the `drizzle` schema because
   * drizzle-kit's first migration creates the service's own schema without IF NOT EXISTS.
   */
  table: string;
};

function migrationConfig(migrations: Migrations) {
  return { migrationsFolder: migrations.folder, migrationsTable: migrations.table, migrationsSchema: 'drizzle' };
}

/** Postgres: instances booting together are serialised by a session advisory lock on one connection. */
export async function migratePool(pool: pg.Pool, migrations: Migrations): Promise<void> {
  const client = await pool.connect();
  const lockKey = `meterway:migrate:${migrations.table}`;
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [lockKey]);
    try {
      await migratePg(drizzlePg({ client }), migrationConfig(migrations));
    } finally {
      await client.query('select pg_advisory_unlock(hashtext($1))', [lockKey]);
    }
  } finally {
    client.release();
  }
}

/** PGlite has one process and one connection, so nothing can race. */
export async function migratePgliteClient(client: PGlite, migrations: Migrations): Promise<void> {
  await migratePglite(drizzlePglite({ client }), migrationConfig(migrations));
}

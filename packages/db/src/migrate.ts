import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
  /**
   * Folder of the service's functions, triggers and views, one `.sql` file each, re-applied after
   * the migrations on every migrate (in name order, in one transaction), so the file is what runs.
   * Each must be idempotent (CREATE OR REPLACE). CREATE OR REPLACE cannot change a function's
   * arguments or result type: a migration drops the old signature (DROP FUNCTION IF EXISTS) first.
   */
  functions?: string;
};

type FunctionFile = { name: string; sql: string };

function migrationConfig(migrations: Migrations) {
  return { migrationsFolder: migrations.folder, migrationsTable: migrations.table, migrationsSchema: 'drizzle' };
}

/** The functions folder's SQL files in name order, read before migrating: a missing folder fails before any migration runs. */
function readFunctions(migrations: Migrations): FunctionFile[] {
  const folder = migrations.functions;
  if (folder === undefined) return [];
  return readdirSync(folder)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(folder, name), 'utf8') }));
}

/** Runs each file, naming the one that failed. A file may hold several statements. */
async function applyFunctions(files: FunctionFile[], exec: (sql: string) => Promise<unknown>): Promise<void> {
  for (const file of files) {
    try {
      await exec(file.sql);
    } catch (error) {
      throw new Error(`${file.name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
}

/** Postgres: instances booting together are serialised by a session advisory lock on one connection. */
export async function migratePool(pool: pg.Pool, migrations: Migrations): Promise<void> {
  const functions = readFunctions(migrations);
  const client = await pool.connect();
  const lockKey = `meterway:migrate:${migrations.table}`;
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [lockKey]);
    try {
      await migratePg(drizzlePg({ client }), migrationConfig(migrations));
      if (functions.length > 0) {
        await client.query('begin');
        try {
          // Without parameters a query goes as a simple query, which may hold several statements.
          await applyFunctions(functions, (sql) => client.query(sql));
          await client.query('commit');
        } catch (error) {
          await client.query('rollback').catch(() => undefined);
          throw error;
        }
      }
    } finally {
      await client.query('select pg_advisory_unlock(hashtext($1))', [lockKey]);
    }
  } finally {
    client.release();
  }
}

/** PGlite has one process and one connection, so nothing can race. */
export async function migratePgliteClient(client: PGlite, migrations: Migrations): Promise<void> {
  const functions = readFunctions(migrations);
  await migratePglite(drizzlePglite({ client }), migrationConfig(migrations));
  if (functions.length > 0) await client.transaction((tx) => applyFunctions(functions, (sql) => tx.exec(sql)));
}

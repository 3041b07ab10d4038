import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { type MigrationMeta, readMigrationFiles } from 'drizzle-orm/migrator';
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
   * the migrations on every migrate (in name order, in their transaction), so the file is what runs.
   * Each must be idempotent (CREATE OR REPLACE). CREATE OR REPLACE cannot change a function's
   * arguments or result type: a migration drops the old signature (DROP FUNCTION IF EXISTS) first.
   */
  functions?: string;
};

type FunctionFile = { name: string; sql: string };

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

/** A transaction's statements, as node-postgres' client and PGlite's transaction both run them. */
type Transaction = {
  /** One statement, with parameters. */
  query: (text: string, params?: unknown[]) => Promise<{ rows: unknown[] }>;
  /** Any number of statements, without parameters. */
  exec: (text: string) => Promise<unknown>;
};

/**
 * The pending migrations, then every function file, in the caller's one transaction, which a
 * transaction-level advisory lock serialises against every instance of every service booting
 * together: one lock for all, as all create the shared `drizzle` schema. No session
 * state (a session lock, a second transaction), so it runs through a transaction pooler
 * (PgBouncer) too, and a failure leaves nothing half-applied. The bookkeeping is drizzle's
 * (`drizzle.<table>`: each applied migration's hash and folder timestamp), so databases migrated
 * by drizzle's own migrator carry on.
 */
async function migrateWithin(tx: Transaction, migrations: Migrations, pending: MigrationMeta[], functions: FunctionFile[]): Promise<void> {
  const table = `"drizzle"."${migrations.table}"`;
  await tx.query("select pg_advisory_xact_lock(hashtext('meterway:migrate'))");
  await tx.exec(`create schema if not exists "drizzle"; create table if not exists ${table} (id serial primary key, hash text not null, created_at bigint)`);
  const { rows } = await tx.query(`select created_at from ${table} order by created_at desc limit 1`);
  const lastApplied = rows.length > 0 ? Number((rows[0] as { created_at: string | number }).created_at) : -Infinity;
  for (const migration of pending.filter((file) => file.folderMillis > lastApplied)) {
    for (const statement of migration.sql) await tx.exec(statement);
    await tx.query(`insert into ${table} (hash, created_at) values ($1, $2)`, [migration.hash, migration.folderMillis]);
  }
  await applyFunctions(functions, tx.exec);
}

/** Reads every file before connecting: a missing folder fails before anything runs. */
const filesOf = (migrations: Migrations) => [readMigrationFiles({ migrationsFolder: migrations.folder }), readFunctions(migrations)] as const;

export async function migratePool(pool: pg.Pool, migrations: Migrations): Promise<void> {
  const [pending, functions] = filesOf(migrations);
  const client = await pool.connect();
  try {
    await client.query('begin');
    await migrateWithin({ query: (text, params) => client.query(text, params), exec: (text) => client.query(text) }, migrations, pending, functions);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export async function migratePgliteClient(client: PGlite, migrations: Migrations): Promise<void> {
  const [pending, functions] = filesOf(migrations);
  await client.transaction((tx) =>
    migrateWithin({ query: (text, params) => tx.query(text, params), exec: (text) => tx.exec(text) }, migrations, pending, functions),
  );
}

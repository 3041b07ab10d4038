import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { type DbHandle, fromPglite, fromPool, type Schema } from '../create-db.js';
import type { Migrations } from '../migrate.js';
import { loadPgliteTemplate } from './pglite-template.js';
import { createFromTemplate } from './postgres-template.js';

export type TestDbOptions<TSchema extends Schema> = {
  schema: TSchema;
  migrations: Migrations;
  /** Defaults to process.env.DATABASE_URL: set, a fresh database on that server; unset, PGlite. */
  databaseUrl?: string | undefined;
};

/** On Postgres, the fresh database's URL, so a test can point other processes or instances at it. */
export type TestDbHandle<TSchema extends Schema> = DbHandle<TSchema> & { databaseUrl?: string };

/**
 * A fresh, migrated database of its own, copied from a migrated template (PGlite's dump, Postgres'
 * template database). The caller must close it; `setupTestDb` does so itself.
 */
export async function createTestDb<TSchema extends Schema>(options: TestDbOptions<TSchema>): Promise<TestDbHandle<TSchema>> {
  const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL;
  if (databaseUrl) return createPostgresTestDb(databaseUrl, options);
  const dump = await loadPgliteTemplate(options.migrations);
  const client = await PGlite.create({ loadDataDir: new Blob([dump]) });
  return fromPglite(client, options.schema);
}

async function createPostgresTestDb<TSchema extends Schema>(serverUrl: string, options: TestDbOptions<TSchema>): Promise<TestDbHandle<TSchema>> {
  const name = `meterway_test_${randomBytes(6).toString('hex')}`;
  await createFromTemplate(serverUrl, options.migrations, name);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 5 });
  pool.on('error', () => {});
  const handle = fromPool(pool, options.schema);
  let dropping: Promise<void> | undefined;
  const drop = () =>
    (dropping ??= (async () => {
      await handle.close();
      await adminQuery(serverUrl, `drop database if exists "${name}" with (force)`);
    })());
  return { ...handle, close: drop, databaseUrl: url.toString() };
}

/** Runs one statement on the server's own database (create or drop a database). */
export async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

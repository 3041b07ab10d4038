import pg from 'pg';
import { fromPool } from '../create-db.js';
import type { Migrations } from '../migrate.js';
import { migrationsHash } from './migrations-hash.js';

// Any fixed number: the advisory lock that lets one worker at a time build a template.
const buildLock = 0x6d657465;

/**
 * The name of a migrated database on the server to copy test databases from (`CREATE DATABASE …
 * TEMPLATE`): a copy takes about a tenth of what migrating does. It is named by the migrations'
 * hash, so it is built once per server by whichever worker gets there first and built anew when a
 * migration or function changes; templates of other hashes are dropped when no one is copying them.
 */
export async function postgresTemplate(serverUrl: string, migrations: Migrations): Promise<string> {
  const name = `meterway_template_${migrationsHash(migrations)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query('select pg_advisory_lock($1)', [buildLock]);
    const existing = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (existing.rowCount === 0) {
      await build(admin, serverUrl, name, migrations);
      await dropStale(admin, name);
    }
    return name;
  } finally {
    await admin.end();
  }
}

async function build(admin: pg.Client, serverUrl: string, name: string, migrations: Migrations) {
  // Built under another name and renamed, so a template is never seen half-migrated.
  const building = `${name}_building`;
  await admin.query(`drop database if exists "${building}" with (force)`);
  await admin.query(`create database "${building}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${building}`;
  const handle = fromPool(new pg.Pool({ connectionString: url.toString(), max: 1 }), {});
  try {
    await handle.migrate(migrations);
  } finally {
    await handle.close();
  }
  await admin.query(`alter database "${building}" rename to "${name}"`);
}

async function dropStale(admin: pg.Client, current: string) {
  const stale = await admin.query<{ datname: string }>(
    `select datname from pg_database where datname like 'meterway\\_template\\_%' and datname <> $1 and datname not like '%\\_building'`,
    [current],
  );
  for (const { datname } of stale.rows) {
    // Another run may be copying it (or building on other migrations): then it stays.
    await admin.query(`drop database if exists "${datname}"`).catch(() => {});
  }
}

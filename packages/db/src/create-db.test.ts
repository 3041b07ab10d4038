import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations, schema } from '../fixture/index.js';
import { createDb, type DbHandle } from './create-db.js';
import type { Migrations } from './migrate.js';
import { adminQuery, createTestDb } from './testing/create-test-db.js';
import { pgBouncerInstalled, startPgBouncer } from './testing/pgbouncer.js';

const opened: DbHandle<typeof schema>[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((handle) => handle.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'meterway-db-'));
  dirs.push(dir);
  return dir;
}

async function open(dataDir: string, databaseUrl?: string) {
  const handle = await createDb({ schema, dataDir, databaseUrl, service: 'fixture' });
  opened.push(handle);
  return handle;
}

describe('createDb on PGlite (no DATABASE_URL)', () => {
  it('keeps data in DATA_DIR/<service> across a close and a reopen', async () => {
    const dataDir = tempDir();
    const first = await open(dataDir);
    expect(first.kind).toBe('pglite');
    await first.migrate(migrations);
    await first.db.insert(schema.notes).values({ body: 'kept' });
    await first.close();

    const second = await open(dataDir);
    await second.migrate(migrations);
    const rows = await second.db.select().from(schema.notes);
    expect(rows.map((row) => row.body)).toEqual(['kept']);
  });

  it('refuses a second open of the same data directory while the first is open', async () => {
    const dataDir = tempDir();
    await open(dataDir);
    await expect(open(dataDir)).rejects.toThrow(/in use by process \d+/);
  });

  it('answers ping while open and rejects it once closed', async () => {
    const handle = await open(tempDir());
    await expect(handle.ping()).resolves.toBeUndefined();
    await handle.close();
    await expect(handle.ping()).rejects.toThrow();
  });
});

/** Another service sharing the database, as identity shares the api's: the fixture's migrations in a schema and a history table of its own. */
function secondService(): Migrations {
  const folder = tempDir();
  cpSync(migrations.folder, folder, { recursive: true });
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.sql'))) {
    writeFileSync(join(folder, file), readFileSync(join(folder, file), 'utf8').replaceAll('"fixture"', '"fixture_two"'));
  }
  return { folder, table: 'fixture_two_migrations' };
}

// Debian's Postgres listens on this socket beside its TCP port.
const socketDir = '/var/run/postgresql';

describe.skipIf(!process.env.DATABASE_URL)('createDb on Postgres (DATABASE_URL set)', () => {
  it('migrates once when several instances boot together, each service in its own schema', async () => {
    // A fresh database on the server, so this test owns its migration history.
    const scratch = await createTestDb({ schema, migrations });
    try {
      const instances = await Promise.all([1, 2, 3].map(() => open(tempDir(), scratch.databaseUrl)));
      await Promise.all(instances.map((instance) => instance.migrate(migrations)));
      expect(instances[0]?.kind).toBe('postgres');
      const [row] = await scratch.db.select({ n: count() }).from(schema.notes);
      expect(row?.n).toBe(0);
      const tables = (await scratch.db.execute("select table_schema as schema from information_schema.tables where table_name = 'notes'")) as unknown as {
        rows: { schema: string }[];
      };
      expect(tables.rows.map((table) => table.schema)).toEqual(['fixture']);
    } finally {
      await Promise.all(opened.splice(0).map((handle) => handle.close()));
      await scratch.close();
    }
  });

  it('connects over a Unix socket, as managed Postgres services hand it out (postgres://user@/db?host=/dir)', async () => {
    const scratch = await createTestDb({ schema, migrations });
    try {
      const database = new URL(scratch.databaseUrl!).pathname.slice(1);
      const user = new URL(scratch.databaseUrl!).username || 'postgres';
      const socketUrl = `postgres://${user}@/${database}?host=${encodeURIComponent(socketDir)}`;
      const handle = await open(tempDir(), socketUrl);
      await handle.migrate(migrations);
      await handle.ping();
      const [row] = await handle.db.select({ n: count() }).from(schema.notes);
      expect(row?.n).toBe(0);
    } finally {
      await Promise.all(opened.splice(0).map((handle) => handle.close()));
      await scratch.close();
    }
  });
});

describe.skipIf(!process.env.DATABASE_URL || !pgBouncerInstalled())(
  'createDb through PgBouncer in transaction mode (DATABASE_URL set, pgbouncer installed)',
  () => {
    it('migrates a fresh database once when two services boot together, three instances each, on fewer server connections than instances', async () => {
      const serverUrl = process.env.DATABASE_URL!;
      const database = `meterway_test_${randomBytes(6).toString('hex')}`;
      await adminQuery(serverUrl, `create database "${database}"`);
      const bouncer = await startPgBouncer(serverUrl, 2);
      try {
        const url = new URL(serverUrl);
        url.pathname = `/${database}`;
        const second = secondService();
        const instances = await Promise.all([1, 2, 3, 4, 5, 6].map(() => open(tempDir(), bouncer.through(url.toString()))));
        await Promise.all(instances.map((instance, index) => instance.migrate(index % 2 ? second : migrations)));
        await instances[0]!.db.insert(schema.notes).values({ body: 'through the pooler' });
        const [row] = await instances[2]!.db.select({ n: count() }).from(schema.notes);
        expect(row?.n).toBe(1);
        for (const service of [migrations, second]) {
          const applied = (await instances[1]!.db.execute(`select count(*)::int as n from drizzle."${service.table}"`)) as unknown as { rows: { n: number }[] };
          expect(applied.rows[0]?.n).toBe(readdirSync(service.folder).filter((file) => file.endsWith('.sql')).length);
        }
        const notes = (await instances[3]!.db.execute(
          "select table_schema from information_schema.tables where table_name = 'notes' order by 1",
        )) as unknown as {
          rows: { table_schema: string }[];
        };
        expect(notes.rows.map((table) => table.table_schema)).toEqual(['fixture', 'fixture_two']);
      } finally {
        await Promise.all(opened.splice(0).map((handle) => handle.close()));
        await bouncer.close();
        await adminQuery(serverUrl, `drop database if exists "${database}" with (force)`);
      }
    });
  },
);

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { fromPglite } from '../create-db.js';
import type { Migrations } from '../migrate.js';
import { migrationsHash } from './migrations-hash.js';

const inProcess = new Map<string, Promise<Uint8Array>>();

/**
 * A migrated PGlite data directory as a gzipped tarball. Creating and migrating a database takes
 * seconds; loading this dump takes about half a second, so each test file starts from it. The
 * dump is cached on disk under a hash of the migrations and the functions, so every test worker
 * shares it and a changed function file makes a new one.
 */
export function loadPgliteTemplate(migrations: Migrations): Promise<Uint8Array> {
  const key = migrationsHash(migrations);
  let dump = inProcess.get(key);
  if (!dump) {
    dump = readOrBuild(key, migrations);
    inProcess.set(key, dump);
  }
  return dump;
}

async function readOrBuild(key: string, migrations: Migrations): Promise<Uint8Array> {
  const file = join(tmpdir(), `meterway-pglite-${key}.tar.gz`);
  try {
    return readFileSync(file);
  } catch {
    const client = await PGlite.create();
    const handle = fromPglite(client, {});
    try {
      await handle.migrate(migrations);
      const dump = new Uint8Array(await (await client.dumpDataDir('gzip')).arrayBuffer());
      // Written aside then renamed, so a worker never reads a half-written template.
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, dump);
      renameSync(partial, file);
      return dump;
    } finally {
      await handle.close();
    }
  }
}

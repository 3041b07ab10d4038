import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Migrations } from '../migrate.js';

/** A short hash of every migration and function file, so a migrated template is rebuilt when any of them changes. */
export function migrationsHash(migrations: Migrations): string {
  const hash = createHash('sha256').update(migrations.table);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      hash.update(entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(readFileSync(path));
    }
  };
  walk(migrations.folder);
  if (migrations.functions !== undefined) {
    hash.update('\0functions\0');
    walk(migrations.functions);
  }
  return hash.digest('hex').slice(0, 16);
}

// The system packages the topology runs on: installed when missing if we may, else named.
import { existsSync } from 'node:fs';
import { run, runQuietly } from './run.mjs';

const install = 'apt-get install -y haproxy pgbouncer';

export function ensureTools() {
  if (!existsSync('/usr/lib/postgresql/15/bin/pg_basebackup')) throw new Error('Postgres 15 is missing: apt-get install -y postgresql-15');
  const missing = ['haproxy', 'pgbouncer'].filter((tool) => !runQuietly(['sh', '-c', `command -v ${tool}`]));
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) throw new Error(`${missing.join(' and ')} missing; install with: sudo ${install}`);
  console.log(`scale:up: installing ${missing.join(' and ')} (${install})…`);
  run(['apt-get', 'install', '-y', 'haproxy', 'pgbouncer'], { stdio: 'inherit' });
}

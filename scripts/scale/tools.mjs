// The system packages the topology runs on: installed when missing if we may, else named.
import { existsSync } from 'node:fs';
import { run } from './run.mjs';

const install = 'apt-get install -y haproxy pgbouncer';

/** Debian's paths: /usr/sbin is not on an ordinary user's PATH. */
export const haproxyBinary = '/usr/sbin/haproxy';
export const pgbouncerBinary = '/usr/sbin/pgbouncer';

export function ensureTools() {
  if (!existsSync('/usr/lib/postgresql/15/bin/pg_basebackup')) throw new Error('Postgres 15 is missing: apt-get install -y postgresql-15');
  const missing = [haproxyBinary, pgbouncerBinary].filter((binary) => !existsSync(binary)).map((binary) => binary.split('/').pop());
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) throw new Error(`${missing.join(' and ')} missing; install with: sudo ${install}`);
  console.log(`scale:up: installing ${missing.join(' and ')} (${install})…`);
  run(['apt-get', 'install', '-y', 'haproxy', 'pgbouncer'], { stdio: 'inherit' });
}

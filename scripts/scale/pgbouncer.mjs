// PgBouncer in transaction mode on the gateway address, in front of whichever server is primary.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ports, scaleDir } from './topology.mjs';
import { database, psql, user } from './postgres.mjs';
import { asPostgres, giveToPostgres, readPid, run } from './run.mjs';
import { pgbouncerBinary } from './tools.mjs';

const dir = join(scaleDir, 'pgbouncer');
const configFile = join(dir, 'pgbouncer.ini');
export const pidFile = join(dir, 'pgbouncer.pid');

const databaseLine = (primary) => `${database} = host=${primary.address} port=${ports.postgres} dbname=${database}`;

function config(gateway, primary) {
  return [
    '[databases]',
    databaseLine(primary),
    '',
    '[pgbouncer]',
    `listen_addr = ${gateway}`,
    `listen_port = ${ports.pgbouncer}`,
    // No Unix socket: /var/run/postgresql belongs to the machine's own server.
    'unix_socket_dir =',
    // Trust, as the servers behind it do; a user must still be listed in auth_file.
    'auth_type = trust',
    `auth_file = ${join(dir, 'userlist.txt')}`,
    'admin_users = postgres',
    'pool_mode = transaction',
    'max_client_conn = 1000',
    'default_pool_size = 40',
    'server_connect_timeout = 3',
    // After a failed login (the primary just died) a pool refuses clients this long, 15 s by
    // default; it must not outlast the failover's switch to the promoted server.
    'server_login_retry = 1',
    'ignore_startup_parameters = extra_float_digits',
    `logfile = ${join(scaleDir, 'logs', 'pgbouncer.log')}`,
    `pidfile = ${pidFile}`,
    '',
  ].join('\n');
}

export function startPgbouncer(gateway, primary) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(configFile, config(gateway, primary));
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" ""\n"postgres" ""\n`);
  giveToPostgres(dir);
  run(asPostgres([pgbouncerBinary, '-d', configFile]));
}

/**
 * Points the pool at another server without a restart: the clients (every service instance) keep
 * their connections to PgBouncer and their DATABASE_URL; RELOAD makes it drop the server
 * connections to the old address and open new ones to the new.
 */
export function repointPgbouncer(gateway, primary) {
  const text = readFileSync(configFile, 'utf8').replace(new RegExp(`^${database} = .*$`, 'm'), databaseLine(primary));
  writeFileSync(configFile, text);
  psql(gateway, 'RELOAD', { port: ports.pgbouncer, db: 'pgbouncer' });
  return psql(gateway, 'SHOW DATABASES', { port: ports.pgbouncer, db: 'pgbouncer' })
    .split('\n')
    .find((line) => line.startsWith(`${database}|`));
}

export const pgbouncerPid = () => readPid(pidFile);

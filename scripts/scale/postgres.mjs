// A Postgres 15 primary and a streaming hot standby, each on its own host, data under .scale/pg.
import { appendFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { logDir, onHost, ports, scaleDir } from './topology.mjs';
import { asPostgres, giveToPostgres, run, runQuietly, waitFor } from './run.mjs';

const bin = '/usr/lib/postgresql/15/bin';
const pgDir = join(scaleDir, 'pg');
export const database = 'meterway';
export const user = 'meterway';

const dataDir = (host) => join(pgDir, host.name, 'data');
const socketDir = (host) => join(pgDir, host.name, 'run');

export const postgresUrl = (address, port = ports.postgres) => `postgres://${user}@${address}:${port}/${database}`;

/** One query as the superuser over TCP, unaligned, tuples only. */
export function psql(address, sql, { port = ports.postgres, db = 'postgres', user: role = 'postgres' } = {}) {
  return run(['psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', address, '-p', String(port), '-U', role, '-d', db, '-c', sql]).trim();
}

function ownDirs(host) {
  mkdirSync(socketDir(host), { recursive: true });
  giveToPostgres(pgDir, logDir);
}

function start(host) {
  // Address and socket per host on the command line, so the replica's copy of the primary's
  // postgresql.conf needs no edit. The socket stays out of /var/run/postgresql, where the
  // machine's own server on 5432 keeps its socket and lock file.
  const options = `-c listen_addresses=${host.address} -c port=${ports.postgres} -c unix_socket_directories=${socketDir(host)}`;
  run(
    onHost(host, asPostgres([`${bin}/pg_ctl`, '-D', dataDir(host), '-l', join(logDir, `postgres-${host.name}.log`), '-w', '-t', '60', '-o', options, 'start'])),
  );
}

export function startPrimary(primary, network) {
  mkdirSync(pgDir, { recursive: true });
  mkdirSync(logDir, { recursive: true });
  ownDirs(primary);
  run(asPostgres([`${bin}/initdb`, '-D', dataDir(primary), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-instructions']));
  appendFileSync(
    join(dataDir(primary), 'postgresql.conf'),
    ['wal_level = replica', 'max_wal_senders = 10', 'hot_standby = on', 'max_connections = 300', 'wal_keep_size = 256MB', ''].join('\n'),
  );
  // Trust on the topology's private network and from the machine itself: a throwaway test
  // cluster reachable from nowhere else, so no passwords to hand around.
  appendFileSync(
    join(dataDir(primary), 'pg_hba.conf'),
    [
      `host all all ${network}/24 trust`,
      `host replication replicator ${network}/24 trust`,
      // In loopback mode a connection to 127.77.0.x comes from 127.0.0.1.
      'host all all 127.0.0.1/32 trust',
      'host replication replicator 127.0.0.1/32 trust',
      '',
    ].join('\n'),
  );
  start(primary);
  // One statement a call: CREATE DATABASE cannot run in the transaction a multi-statement -c is.
  for (const sql of [`create role ${user} login`, `create database ${database} owner ${user}`, 'create role replicator replication login'])
    psql(primary.address, sql);
}

export function startReplica(replica, primary) {
  ownDirs(replica);
  run(
    onHost(
      replica,
      asPostgres([
        `${bin}/pg_basebackup`,
        '-h',
        primary.address,
        '-p',
        String(ports.postgres),
        '-U',
        'replicator',
        '-D',
        dataDir(replica),
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
      ]),
    ),
  );
  start(replica);
}

/**
 * Waits until the standby streams, then makes it synchronous: the primary acknowledges a commit
 * only once the standby has it on disk, so a failover loses no hold, settlement or top-up a
 * service was told had committed. Set on the primary alone (ALTER SYSTEM after the base backup),
 * so the promoted standby does not wait for a standby of its own.
 */
export async function waitStreaming(primary, replica) {
  await waitFor(
    `${replica.name} to stream from ${primary.name}`,
    () => psql(primary.address, `select count(*) from pg_stat_replication where state = 'streaming'`) === '1',
  );
  psql(primary.address, `alter system set synchronous_standby_names = '*'`);
  psql(primary.address, 'select pg_reload_conf()');
  await waitFor(`${replica.name} to be synchronous`, () => psql(primary.address, `select count(*) from pg_stat_replication where sync_state = 'sync'`) === '1');
}

/** Stops one server; `immediate` is a crash as far as the server can tell (no checkpoint). */
export function stop(host, mode) {
  if (!existsSync(join(dataDir(host), 'postmaster.pid'))) return false;
  return runQuietly(asPostgres([`${bin}/pg_ctl`, '-D', dataDir(host), '-m', mode, '-w', '-t', '20', 'stop']));
}

/** Promotes a standby and waits until it takes writes: `txid_current()` needs a writable server. */
export async function promote(replica) {
  run(asPostgres([`${bin}/pg_ctl`, '-D', dataDir(replica), '-w', '-t', '60', 'promote']));
  await waitFor(`${replica.name} to accept writes`, () => psql(replica.address, 'select txid_current()', { db: database }) !== '', 30_000);
}

/** Every server data directory under .scale, whatever state up reached. */
export function serverHosts() {
  return existsSync(pgDir) ? readdirSync(pgDir).map((name) => ({ name })) : [];
}

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@meterway/service';

const binary = '/usr/sbin/pgbouncer';

/** Whether Debian's PgBouncer is installed (`apt-get install pgbouncer`; .ci/run installs it). */
export function pgBouncerInstalled(): boolean {
  try {
    execFileSync(binary, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export type PgBouncer = {
  /** `databaseUrl` with its host and port swapped for PgBouncer's: the same database, through the pooler. */
  through: (databaseUrl: string) => string;
  close: () => Promise<void>;
};

/**
 * PgBouncer in transaction mode in front of the server at `serverUrl`, every database passed
 * through (`*`), with `serverConnections` server connections per database: fewer than the
 * clients, so statements of one client run on connections another prepared, as in production.
 */
export async function startPgBouncer(serverUrl: string, serverConnections: number): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const dir = mkdtempSync(join(tmpdir(), 'meterway-pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const user = server.username || 'postgres';
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir =`,
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${serverConnections}`,
      'max_client_conn = 200',
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root.
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(
    asRoot ? 'runuser' : binary,
    asRoot ? ['-u', 'postgres', '--', binary, join(dir, 'pgbouncer.ini')] : [join(dir, 'pgbouncer.ini')],
    // Its own process group, so stopping it reaches pgbouncer under runuser too.
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const stop = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Already gone.
    }
  };
  // A test run cut short (a hook's timeout, Ctrl-C) must not leave it running; 'exit' handlers run synchronously.
  const stopOnExit = () => {
    stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopOnExit);
  try {
    await up(child);
  } catch (error) {
    process.off('exit', stopOnExit);
    stopOnExit();
    throw error;
  }
  const exited = new Promise<void>((resolve) => (child.exitCode === null ? child.once('exit', () => resolve()) : resolve()));
  return {
    through: (databaseUrl) => {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    close: async () => {
      process.off('exit', stopOnExit);
      stop('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Until PgBouncer logs that it is up (it listens by then); fails with its log if it exits first. */
function up(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    child.stderr?.on('data', (piece: Buffer) => {
      log += piece.toString();
      if (log.includes('process up')) resolve();
    });
    child.once('exit', () => reject(new Error(`pgbouncer exited: ${log}`)));
  });
}

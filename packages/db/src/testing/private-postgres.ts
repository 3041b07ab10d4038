import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@meterway/service';

const run = promisify(execFile);

/** Postgres refuses to run as root; as root (CI, this machine) its tools run as the postgres user, as .ci/run does. */
const asPostgresUser = (command: string, args: string[]): [string, string[]] =>
  process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];

async function asPostgres(command: string, args: string[]) {
  const [file, argv] = asPostgresUser(command, args);
  try {
    return await run(file, argv, { timeout: 60_000 });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${stderr ?? String(error)}`, { cause: error });
  }
}

export type PrivatePostgres = {
  /** The server's `postgres` database; the suites create their own databases on it. */
  readonly url: string;
  /**
   * Stops the server as `pg_ctl stop` does: `fast` ends every connection and shuts down cleanly;
   * `immediate` kills every server process at once, as a crash does, so the next start replays the WAL.
   */
  stop: (mode?: 'fast' | 'immediate') => Promise<void>;
  start: () => Promise<void>;
  /** What the server has logged so far (startups, crash recovery). */
  serverLog: () => string;
  /** Stops the server for good and removes its files. */
  destroy: () => Promise<void>;
};

/**
 * A Postgres server of this test file's own (initdb + pg_ctl on a free port in a temporary
 * folder), for faults the shared server must never suffer, such as a restart.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'meterway-pg-'));
  if (process.getuid?.() === 0) await run('chown', ['postgres', dir]);
  const data = join(dir, 'data');
  const port = await freePort();
  await asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  // fsync only matters when the machine itself goes down; a crashed server still recovers from its WAL.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const start = async () => void (await asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']));
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => void (await asPostgres('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']));
  // A test run that is cut short must not leave the server running; 'exit' handlers run synchronously.
  const stopOnExit = () => {
    const [file, argv] = asPostgresUser('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    execFileSync(file, argv, { stdio: 'ignore', timeout: 10_000 });
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopOnExit);
  await start();
  let destroyed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    serverLog: () => readFileSync(join(dir, 'log'), 'utf8'),
    destroy: async () => {
      if (destroyed) return;
      destroyed = true;
      process.off('exit', stopOnExit);
      await stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

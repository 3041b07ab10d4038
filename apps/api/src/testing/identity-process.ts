import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, packagePath } from '@meterway/service';

/**
 * Run first in the child: when the test worker that started it ends, however it ends (Vitest stops
 * its workers with a signal, so their 'exit' handlers do not run), the pipe to the child's stdin
 * closes and the child stops as on SIGTERM.
 */
const exitWithParent = `data:text/javascript,process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM')).resume();`;

/**
 * A real identity service in its own process (the api only ever talks to identity over HTTP), on
 * a free port with its own PGlite data and the dev outbox for mail.
 */
async function startIdentity() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'meterway-identity-'));
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', exitWithParent, '--import', 'tsx', packagePath(import.meta.url, '..', 'identity', 'src', 'server.ts')],
    {
      env: {
        ...process.env,
        DATABASE_URL: '',
        IDENTITY_DATABASE_URL: '',
        SMTP_URL: '',
        NODE_ENV: 'test',
        IDENTITY_PORT: String(port),
        IDENTITY_URL: url,
        CONSOLE_URL: 'http://localhost:3999',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        IDENTITY_RATE_LIMIT_MULTIPLIER: '1000',
      },
      stdio: ['pipe', 'ignore', 'pipe'],
    },
  );
  child.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  // A loaded machine can miss the deadline (kept inside the callers' 60 s hooks): the child must not
  // outlive the test that gave up on it.
  const deadline = Date.now() + 45_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`identity exited: ${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`identity did not start: ${stderr}`);
    }
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

let shared: ReturnType<typeof startIdentity> | undefined;

/**
 * One identity service for all the test files a worker runs (they share the worker's modules):
 * booting one takes seconds, and each file signs up people of its own with unique addresses. It
 * stops when the worker exits.
 */
export function sharedIdentity(): ReturnType<typeof startIdentity> {
  shared ??= startIdentity().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, packagePath } from '@meterway/service';

/**
 * A real identity service in its own process (the api only ever talks to identity over HTTP), on
 * a free port with its own PGlite data and the dev outbox for mail.
 */
export async function startIdentity(consoleUrl = 'http://localhost:3999') {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', packagePath(import.meta.url, '..', 'identity', 'src', 'server.ts')], {
    env: {
      ...process.env,
      DATABASE_URL: '',
      IDENTITY_DATABASE_URL: '',
      SMTP_URL: '',
      NODE_ENV: 'test',
      IDENTITY_PORT: String(port),
      IDENTITY_URL: url,
      CONSOLE_URL: consoleUrl,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'meterway-identity-')),
      LOG_LEVEL: 'warn',
      IDENTITY_RATE_LIMIT_MULTIPLIER: '1000',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // A test worker that ends without calling stop() takes its identity with it.
  const killChild = () => child.kill('SIGKILL');
  process.once('exit', killChild);
  child.once('exit', () => process.off('exit', killChild));
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

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { freePort } from '@meterway/service';

const root = join(import.meta.dirname, '../..');
const consoleDir = join(root, 'apps/console');

const lockFile = process.env.METERWAY_BUILD_LOCK ?? '/tmp/meterway-e2e.lock';

/**
 * Runs this whole script again under the lock the e2e runs take (where flock exists), and exits
 * with its code. The lock covers the measuring too, not only the build: an e2e boot rebuilds
 * apps/console/dist, and the bench must not serve a folder that changes under it.
 */
export function reRunUnderBuildLock(): void {
  if (process.env.BENCH_CONSOLE_LOCKED === '1') return;
  if (spawnSync('flock', ['--version'], { stdio: 'ignore' }).status !== 0) return;
  const result = spawnSync('flock', [lockFile, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_CONSOLE_LOCKED: '1' },
  });
  process.exit(result.status ?? 1);
}

/** `npm run build --workspace @meterway/console`: the production build the server serves. */
export function buildConsole(): void {
  const result = spawnSync('npm', ['run', 'build', '--workspace', '@meterway/console'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error('the console build failed');
}

/**
 * A logged-out identity service: whoami answers 401 as identity does, with the CORS headers
 * identity sends the console, so /login renders exactly as for a first-time visitor without
 * the bench needing identity's database.
 */
function loggedOutIdentity(consoleOrigin: string): Server {
  return createServer((request, response) => {
    response.setHeader('access-control-allow-origin', consoleOrigin);
    response.setHeader('access-control-allow-credentials', 'true');
    response.setHeader('vary', 'Origin');
    if (request.method === 'OPTIONS') {
      response.setHeader('access-control-allow-headers', request.headers['access-control-request-headers'] ?? '*');
      response.setHeader('access-control-allow-methods', 'GET, POST');
      response.writeHead(204).end();
      return;
    }
    const body = {
      error: {
        code: 401,
        status: 'Unauthorized',
        reason: 'No valid session credentials found in the request.',
        message: 'The request could not be authorized',
      },
    };
    response.writeHead(request.url?.startsWith('/sessions/whoami') ? 401 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  });
}

export type ServedConsole = { consoleUrl: string; stop: () => Promise<void> };

/** apps/console/dist/server.js, the console's production server, on a free port, beside a logged-out identity. */
export async function serveConsole(): Promise<ServedConsole> {
  const [consolePort, apiPort, identityPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const consoleUrl = `http://localhost:${consolePort}`;
  const identity = loggedOutIdentity(consoleUrl);
  await new Promise<void>((resolve) => identity.listen(identityPort, '127.0.0.1', resolve));

  const env = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    CONSOLE_PORT: String(consolePort),
    API_PORT: String(apiPort),
    IDENTITY_PORT: String(identityPort),
  };
  const server = spawn(process.execPath, ['dist/server.js'], { cwd: consoleDir, env, stdio: ['ignore', 'inherit', 'inherit'] });
  try {
    await waitForHealth(`${consoleUrl}/healthz`, server);
  } catch (error) {
    server.kill('SIGTERM');
    identity.close();
    throw error;
  }
  return {
    consoleUrl,
    stop: async () => {
      await stopProcess(server);
      await new Promise<void>((resolve) => identity.close(() => resolve()));
    },
  };
}

async function waitForHealth(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the console server exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer within 30 s`);
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

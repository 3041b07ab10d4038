import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@meterway/service';

const root = join(import.meta.dirname, '../..');

export type StackUrls = { consoleUrl: string; apiUrl: string; identityUrl: string; dataDir: string };

export type Stack = StackUrls & {
  /** Everything the stack printed so far. */
  output: () => string;
  /** SIGTERM, as Ctrl-C would; resolves with the supervisor's exit code. */
  stop: () => Promise<number | null>;
};

/**
 * Boots the stack exactly as `npm start` does (scripts/start.mjs: build what is stale, run the
 * three services) on free ports. A fresh temporary DATA_DIR unless one is given.
 */
export async function startStack(options: { dataDir?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Stack> {
  const env = { ...(await isolatedEnv()), ...(options.dataDir ? { DATA_DIR: options.dataDir } : {}), ...options.env };
  const dataDir = env.DATA_DIR;
  const urls = {
    consoleUrl: `http://localhost:${env.CONSOLE_PORT}`,
    apiUrl: `http://localhost:${env.API_PORT}`,
    identityUrl: `http://localhost:${env.IDENTITY_PORT}`,
  };
  const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

  const ready = await Promise.race([waitFor(() => output.includes('Meterway is running'), 170_000).then(() => true), exited.then(() => false)]);
  if (!ready) throw new Error(`The stack did not start:\n${output}`);
  return { ...urls, dataDir, output: () => output, stop: () => stop(child, exited) };
}

/** Runs scripts/start.mjs to its end (for boots that must fail) and returns its exit code and output. */
export async function runStackToExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: { ...process.env, ...(await isolatedEnv()), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, output };
}

/** Free ports and a fresh DATA_DIR, so a test stack never meets another one. */
async function isolatedEnv() {
  const [consolePort, apiPort, identityPort] = await Promise.all([freePort(), freePort(), freePort()]);
  return {
    CONSOLE_PORT: String(consolePort),
    API_PORT: String(apiPort),
    IDENTITY_PORT: String(identityPort),
    DATA_DIR: mkdtempSync(join(tmpdir(), 'meterway-e2e-')),
    // The embedded default, as on a fresh machine, whatever server the test run's DATABASE_URL names.
    DATABASE_URL: '',
    DATABASE_REPLICA_URL: '',
    IDENTITY_DATABASE_URL: '',
  };
}

async function stop(child: ChildProcess, exited: Promise<number | null>) {
  if (child.exitCode === null) child.kill('SIGTERM');
  return exited;
}

async function waitFor(condition: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, packagePath } from '@meterway/service';
import { build } from 'esbuild';

const apiDir = packagePath(import.meta.url);
let bundled: Promise<string> | undefined;

/**
 * soak-server.ts bundled once per test file, as scripts/build-service.mjs bundles server.ts, into a
 * folder of its own under apps/api/dist (so a build running beside it is never overwritten, and
 * the bundle still finds node_modules and pricing.json from where it lies). Removed by `removeBundle`.
 */
export function soakServerBundle(): Promise<string> {
  bundled ??= (async () => {
    const outfile = join(apiDir, 'dist', `soak-${process.pid}-${randomBytes(4).toString('hex')}`, 'server.js');
    process.once('exit', () => rmSync(join(outfile, '..'), { recursive: true, force: true }));
    await build({
      entryPoints: [join(apiDir, 'src', 'soak', 'soak-server.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
      // Workspace packages export TypeScript and are bundled in; every other package is imported at run time.
      plugins: [
        {
          name: 'external-packages',
          setup(esbuild) {
            esbuild.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@meterway/') ? undefined : { path: args.path, external: true }));
          },
        },
      ],
    });
    return outfile;
  })();
  return bundled;
}

export async function removeBundle() {
  if (!bundled) return;
  const outfile = await bundled.catch(() => undefined);
  if (outfile) rmSync(join(outfile, '..'), { recursive: true, force: true });
  bundled = undefined;
}

export type ApiProcess = {
  readonly url: string;
  readonly pid: number | undefined;
  /** Whether the current process is still running. */
  running: () => boolean;
  /** Everything it printed (warnings and errors: it logs at `warn`). */
  output: () => string;
  /** SIGKILL: no shutdown, no settlement, connections dropped as a crash drops them. */
  kill: () => Promise<void>;
  /** SIGTERM and wait: answers in flight finish and every settlement is written first. Resolves with the exit code. */
  stop: () => Promise<number | null>;
  /** A fresh process on the same port and environment (after kill or stop). */
  restart: () => Promise<void>;
};

/** An api process on a free port, ready once /healthz says the database answers. */
export async function startApi(env: Record<string, string>): Promise<ApiProcess> {
  const entry = await soakServerBundle();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess;
  let exited: Promise<number | null>;
  let output = '';

  async function launch() {
    child = spawn(process.execPath, [entry], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', HOST: '127.0.0.1', API_PORT: String(port), API_URL: url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // A test run that is cut short (a timeout, Ctrl-C) must not leave api processes behind.
    const orphan = child;
    const killOrphan = () => orphan.kill('SIGKILL');
    process.once('exit', killOrphan);
    orphan.once('exit', () => process.off('exit', killOrphan));
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    const current = child;
    exited = new Promise((resolve) => current.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (current.exitCode !== null) throw new Error(`the api exited with ${current.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`the api did not become healthy:\n${output}`);
      const healthy = await fetch(`${url}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (healthy) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  await launch();
  return {
    url,
    get pid() {
      return child.pid;
    },
    running: () => child.exitCode === null && child.signalCode === null,
    output: () => output,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    restart: launch,
  };
}

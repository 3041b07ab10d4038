// The gateway of bench/gateway/overhead.ts as production runs it: the api built as `npm start`
// builds it (apps/api/dist/server.js) and run in a process of its own, on a free port, against the
// bench's database. Optionally with the inspector on, so that a CPU profile of a chosen window can
// be taken over the DevTools protocol.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '@meterway/service';

const apiDir = new URL('../../apps/api/', import.meta.url).pathname;

export type GatewayProcess = {
  url: string;
  child: ChildProcess;
  /** The calls it admitted and the nano-dollars it charged so far, from its own /metrics. */
  counts: () => Promise<{ admitted: number; chargedNanos: number }>;
  /** A CPU profile of the process while `during` runs (started with `inspect`). */
  profile: <T>(during: () => Promise<T>) => Promise<{ result: T; profile: { nodes: unknown[] } }>;
  stop: () => Promise<void>;
};

/** Builds the api bundle (esbuild, a few seconds). */
export function buildGateway(): void {
  const built = spawnSync(process.execPath, ['../../scripts/build-service.mjs'], { cwd: apiDir, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('building apps/api failed');
}

type Options = {
  databaseUrl: string;
  upstreamBaseUrl: string;
  /**
   * 2: the upstream as two providers of a PROVIDERS_FILE, every priced model routed to both (the
   * second would take over from the first), so calls take the routed path with its circuit breakers.
   */
  providers?: 1 | 2;
  inspect?: boolean;
};

/** A providers file naming the upstream twice, `models` routed to the first, then the second. */
function twoProviders(baseUrl: string, dataDir: string, models: readonly string[]): string {
  const path = join(dataDir, 'providers.json');
  const providers = [
    { id: 'first', baseUrl },
    { id: 'second', baseUrl },
  ];
  writeFileSync(path, JSON.stringify({ providers, routes: Object.fromEntries(models.map((model) => [model, ['first', 'second']])) }));
  return path;
}

export async function startGateway(options: Options): Promise<GatewayProcess> {
  const [port, inspectorPort] = await Promise.all([freePort(), freePort()]);
  const dataDir = mkdtempSync(join(tmpdir(), 'meterway-bench-'));
  const upstream =
    options.providers === 2
      ? { PROVIDERS_FILE: twoProviders(options.upstreamBaseUrl, dataDir, ['gpt-4o-mini', 'gpt-4o']) }
      : { UPSTREAM_BASE_URL: options.upstreamBaseUrl };
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    API_PORT: String(port),
    DATABASE_URL: options.databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    GATEWAY_RATE_LIMIT_PER_MINUTE: '100000000',
    // The load generator's connections are visitors behind one proxy hop (load.ts).
    TRUST_PROXY: '1',
    ...upstream,
  };
  const flags = options.inspect ? [`--inspect=127.0.0.1:${inspectorPort}`] : [];
  const child = spawn(process.execPath, [...flags, '--enable-source-maps', 'dist/server.js'], { cwd: apiDir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  // Its errors pass through; the inspector's notices ("Debugger listening…") do not.
  createInterface({ input: child.stderr! }).on('line', (line) => {
    if (!/^(Debugger (listening|attached|ending)|For help, see)/.test(line)) console.error(line);
  });
  process.once('exit', () => child.kill());
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++, await sleep(100)) {
    if (child.exitCode !== null || tries > 300) throw new Error(`the gateway did not start on port ${port}`);
    if (
      await fetch(`${url}/healthz`).then(
        (response) => response.ok,
        () => false,
      )
    )
      break;
  }
  return {
    url,
    child,
    counts: async () => {
      const lines = (await (await fetch(`${url}/metrics`)).text()).split('\n');
      const value = (prefix: string, part = '') =>
        Number(
          lines
            .find((line) => line.startsWith(prefix) && line.includes(part))
            ?.split(' ')
            .at(-1) ?? Number.NaN,
        );
      return {
        admitted: value('meterway_api_gateway_admissions_total{', 'outcome="admitted"'),
        chargedNanos: value('meterway_api_gateway_charged_nanodollars_total '),
      };
    },
    profile: (during) => profileOver(inspectorPort, during),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Profiles the process listening for the inspector on `port` while `during` runs (DevTools protocol over Node's WebSocket). */
async function profileOver<T>(port: number, during: () => Promise<T>): Promise<{ result: T; profile: { nodes: unknown[] } }> {
  const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const socket = new WebSocket(target!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let nextId = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  };
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 200 });
  await send('Profiler.start');
  const result = await during();
  const { profile } = (await send('Profiler.stop')) as { profile: { nodes: unknown[] } };
  socket.close();
  return { result, profile };
}

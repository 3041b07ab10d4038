// `npm run bench:scale --workspace bench`: metered gateway calls per second through HAProxy with
// three api instances, then with two of them disabled on HAProxy's stats socket, in one run of the
// scale topology (which it brings up and takes down). autocannon runs inside each client host.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { prepareAccount } from '../../apps/api/src/scale/accounts.js';

const root = join(import.meta.dirname, '../..');
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const connectionsPerHost = Number(process.env.BENCH_CONNECTIONS ?? 16);
const origin = 'https://shop.example.com';
const autocannon = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

function run(command: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command.join(' ')} exited with ${code}`))));
  });
}

function stats(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const connection = createConnection(socket, () => connection.end(`${command}\n`));
    connection.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    connection.on('end', () => resolve(answer)).on('error', reject);
  });
}

type Env = Record<string, string>;

/** One autocannon per client host at once, non-streamed demo-model calls; their 2xx per second summed. */
async function measure(env: Env, key: string, duration: number) {
  const body = JSON.stringify({ model: 'meterway-demo', max_tokens: 16, messages: [{ role: 'user', content: 'Count a few Greek letters.' }] });
  const headers = [`authorization=Bearer ${key}`, `origin=${origin}`, 'content-type=application/json'].flatMap((header) => ['-H', header]);
  const hosts = env.CLIENT_HOSTS!.split(' ');
  const results = await Promise.all(
    hosts.map(async (host) => {
      const command = ['node', autocannon, '-j', '-c', String(connectionsPerHost), '-d', String(duration), '-m', 'POST', ...headers, '-b', body];
      const output = await run(
        env.SCALE_NETWORK === 'netns'
          ? ['ip', 'netns', 'exec', host, ...command, `${env.API_URL}/v1/chat/completions`]
          : [...command, `${env.API_URL}/v1/chat/completions`],
      );
      return JSON.parse(output) as { '2xx': number; non2xx: number; errors: number; latency: { p50: number; p99: number } };
    }),
  );
  const sum = (field: '2xx' | 'non2xx' | 'errors') => results.reduce((total, result) => total + result[field], 0);
  return {
    perSecond: Math.round(sum('2xx') / duration),
    non2xx: sum('non2xx'),
    errors: sum('errors'),
    p50: Math.max(...results.map((result) => result.latency.p50)),
    p99: Math.max(...results.map((result) => result.latency.p99)),
  };
}

async function bench() {
  await run(['node', 'scripts/scale/up.mjs'], { GATEWAY_RATE_LIMIT_PER_MINUTE: '100000000' }).then((output) => process.stderr.write(output));
  const env = Object.fromEntries(
    readFileSync(join(root, '.scale/env'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1).replace(/^"(.*)"$/, '$1')]),
  ) as Env;
  const urls = {
    apiUrl: env.API_URL!,
    identityUrl: env.IDENTITY_URL!,
    consoleUrl: env.CONSOLE_URL!,
    identityInstances: env.IDENTITY_INSTANCE_URLS!.split(' '),
  };
  const { account } = await prepareAccount(urls, origin, { credit: 100, smallBudget: 1000 });
  const key = account.keys[0]!.value;
  const connections = connectionsPerHost * env.CLIENT_HOSTS!.split(' ').length;
  console.log(`metered gateway calls through HAProxy, ${seconds} s each, ${connections} connections from ${env.CLIENT_HOSTS}:`);
  await measure(env, key, 3);
  const three = await measure(env, key, seconds);
  const show = (label: string, figures: Awaited<ReturnType<typeof measure>>) =>
    console.log(`  ${label}: ${figures.perSecond} calls/s (p50 ${figures.p50} ms, p99 ${figures.p99} ms; ${figures.non2xx} non-2xx, ${figures.errors} errors)`);
  show('3 api instances', three);
  for (const server of ['api-2', 'api-3']) await stats(env.HAPROXY_STATS_SOCKET!, `disable server api_instances/${server}`);
  await measure(env, key, 3);
  const one = await measure(env, key, seconds);
  show('1 api instance ', one);
  // Three again, so neither figure is only the warmer or the colder run.
  for (const server of ['api-2', 'api-3']) await stats(env.HAPROXY_STATS_SOCKET!, `enable server api_instances/${server}`);
  await measure(env, key, 3);
  const again = await measure(env, key, seconds);
  show('3 api instances, again', again);
  console.log(`  three against one: ${((three.perSecond + again.perSecond) / 2 / one.perSecond).toFixed(2)}×`);
}

if (existsSync(join(root, '.scale/state.json'))) {
  console.error('A scale topology is already up: `npm run scale:down` first (this bench brings up its own).');
  process.exit(1);
}
try {
  await bench();
} finally {
  await run(['node', 'scripts/scale/down.mjs']);
}

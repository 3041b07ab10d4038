// `npm run test:scale`: builds the scale topology, runs mixed load through HAProxy from the three
// client hosts while one api and one identity instance are killed and the primary fails over,
// then checks the money invariants on the promoted primary; exits 1 on any broken one. Always
// takes the topology down at the end (its logs are copied out first).
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '@meterway/db';
import { schema } from '../db/index.js';
import { prepareAccount, type ScaleUrls } from './accounts.js';
import type { KeyTally, LoadPlan, LoadResult } from './load-plan.js';
import { checkAfterLoad, crashWindowMs, openHolds } from './scale-invariants.js';

const root = join(import.meta.dirname, '../../../..');
const loadSeconds = Number(process.env.SCALE_LOAD_SECONDS ?? 60);
const origin = 'https://shop.example.com';
// Short holds, so the holds of calls the killed instance had in flight expire within the test; the
// rate limit per key well above what three hosts send (the keys carry no per-address caps).
const topologyEnv = { RESERVATION_TTL_MS: '20000', UPSTREAM_TIMEOUT_MS: '10000', GATEWAY_RATE_LIMIT_PER_MINUTE: '1000000' };
/** The report goes to stdout (the lint keeps console.log out of app code). */
const say = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const since = (start: number) => `${((Date.now() - start) / 1000).toFixed(1)} s`;

/** Runs an npm script of the topology (scale:up, kill, failover, down), its output through ours; answers its exit code and what it printed. */
function scale(script: string, ...args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    const child = spawn('node', [join(root, 'scripts/scale', `${script}.mjs`), ...args], {
      cwd: root,
      env: { ...process.env, ...topologyEnv },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (piece: string) => {
      output += piece;
      process.stdout.write(piece);
    });
    child.on('close', (code) => done({ code: code ?? 1, output }));
  });
}

function readEnv(): Record<string, string> {
  return Object.fromEntries(
    readFileSync(join(root, '.scale/env'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1).replace(/^"(.*)"$/, '$1')]),
  );
}

/** One load client inside a client host's namespace (or as is, in loopback mode). */
function loadClient(plan: LoadPlan, netns: boolean): Promise<LoadResult> {
  const command = ['node', '--import', 'tsx', join(import.meta.dirname, 'load-client.ts')];
  const [file, ...args] = netns ? ['ip', 'netns', 'exec', plan.host, ...command] : command;
  return new Promise((resolve, reject) => {
    const child = spawn(file!, args, { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(output) as LoadResult) : reject(new Error(`load client on ${plan.host} exited with ${code}`))));
    child.stdin.end(JSON.stringify(plan));
  });
}

async function run(): Promise<boolean> {
  if ((await scale('up')).code !== 0) throw new Error('scale:up failed');
  const env = readEnv();
  const urls: ScaleUrls = {
    apiUrl: env.API_URL!,
    identityUrl: env.IDENTITY_URL!,
    consoleUrl: env.CONSOLE_URL!,
    identityInstances: env.IDENTITY_INSTANCE_URLS!.split(' '),
  };
  const start = Date.now();
  const prepared = await Promise.all(
    [0, 1, 2, 3, 4, 5].map((index) => prepareAccount(urls, origin, { credit: index % 2 ? 1 : 5, smallBudget: index % 2 ? 0.02 : 0.05 })),
  );
  const accounts = prepared.map((one) => one.account);
  say(`test:scale: ${accounts.length} accounts signed up through ${urls.identityUrl}, with keys and credit (${since(start)})`);

  const hosts = env.CLIENT_HOSTS!.split(' ');
  const plan = (host: string): LoadPlan => ({
    host,
    ...urls,
    origin,
    model: 'meterway-demo',
    durationMs: loadSeconds * 1000,
    gatewayWorkers: 6,
    topUpEveryMs: 4000,
    topUpDollars: 1,
    accounts,
  });
  const loadStart = Date.now();
  const clients = Promise.all(hosts.map((host) => loadClient(plan(host), env.SCALE_NETWORK === 'netns')));
  say(`test:scale: ${loadSeconds} s of load from ${hosts.join(', ')} through HAProxy`);
  const at = (share: number) => sleep(Math.max(0, loadStart + share * loadSeconds * 1000 - Date.now()));
  const drill: string[] = [];
  await at(0.2);
  const killAt = Date.now();
  const apiKill = await scale('kill', 'api');
  if (apiKill.code !== 0) drill.push('scale:kill -- api failed');
  // scale:kill names the instance it killed: "scale:kill: killed api-1 (…)".
  const killedInstance = /^scale:kill: killed (\S+)/m.exec(apiKill.output)?.[1];
  const killed = killedInstance ? { instance: killedInstance, at: killAt } : undefined;
  await at(0.35);
  if ((await scale('kill', 'identity')).code !== 0) drill.push('scale:kill -- identity failed');
  await at(0.5);
  if ((await scale('failover')).code !== 0) drill.push('scale:failover failed');
  const failedOverAt = Date.now();
  say(`test:scale: drill done at ${since(loadStart)} into the load; load continues`);
  const results = await clients;

  // Calls settle right after their answers; the killed instance's holds once their lifetime is over.
  const db = await createDb({ schema, databaseUrl: env.DATABASE_URL, dataDir: '', service: 'api', poolSize: 2 });
  let holds = await openHolds(db.db);
  const settleStart = Date.now();
  while (holds.open > 0 && Date.now() - settleStart < 90_000) {
    await sleep(1000);
    holds = await openHolds(db.db);
  }
  say(`test:scale: ${holds.open} holds open ${since(settleStart)} after the load (${holds.expired} past their lifetime)`);

  const keys = new Map<string, KeyTally>();
  for (const result of results)
    for (const [key, tally] of Object.entries(result.keys)) {
      const total = keys.get(key) ?? { answers: [], cutShort: 0, refused: 0, lost: 0 };
      keys.set(key, {
        answers: [...total.answers, ...tally.answers],
        cutShort: total.cutShort + tally.cutShort,
        refused: total.refused + tally.refused,
        lost: total.lost + tally.lost,
      });
    }
  const paid = [...prepared.map((one) => one.paid), ...results.flatMap((result) => result.paid)];
  const report = await checkAfterLoad(db.db, keys, paid, killed);
  await db.close();

  const counts: Record<string, number> = {};
  for (const result of results) for (const [kind, n] of Object.entries(result.counts)) counts[kind] = (counts[kind] ?? 0) + n;
  const served = Object.entries(counts).reduce((sum, [kind, n]) => sum + (/ 2\d\d( |$)/.test(kind) ? n : 0), 0);
  const servedAfterDrill = [...keys.values()].reduce((sum, tally) => sum + tally.answers.filter((answer) => answer.at > failedOverAt).length, 0);
  const unclean = results.flatMap((result) => result.unclean);
  const uncleanCount = results.reduce((sum, result) => sum + result.uncleanCount, 0);
  const violations = [
    ...drill,
    ...report.violations,
    ...(holds.expired > 0 ? [`${holds.expired} holds left past their lifetime`] : []),
    ...(servedAfterDrill === 0 ? ['no gateway call succeeded after the failover'] : []),
    ...(uncleanCount > 0 ? [`${uncleanCount} unclean failures (a 5xx from an instance other than 503 with Retry-After): ${JSON.stringify(unclean)}`] : []),
  ];

  say(`\ntest:scale: ${loadSeconds} s of load from ${hosts.length} client hosts`);
  say(`  requests answered 2xx: ${served}, of ${Object.values(counts).reduce((sum, n) => sum + n, 0)} sent`);
  say(`  gateway 200s after the failover: ${servedAfterDrill}`);
  say('  outcomes by kind:');
  for (const [kind, n] of Object.entries(counts).sort(([a], [b]) => a.localeCompare(b))) say(`    ${String(n).padStart(7)}  ${kind}`);
  say(`  sandbox payments accepted: ${paid.length}; keys checked: ${keys.size}`);
  say(
    `  answered 200s from ${killed?.instance ?? 'the killed api instance'} in the ${crashWindowMs} ms before its SIGKILL, uncharged as decision 008 allows: ${report.excused}`,
  );
  say(`  invariant checks: ${report.checks + 3}, broken: ${violations.length}`);
  for (const violation of violations.slice(0, 30)) say(`    ✗ ${violation}`);
  return violations.length === 0;
}

let ok = false;
try {
  ok = await run();
} catch (error) {
  console.error(`test:scale: ${(error as Error).stack ?? error}`);
} finally {
  const logs = join(tmpdir(), `meterway-scale-logs-${Date.now()}`);
  if (existsSync(join(root, '.scale/logs'))) {
    cpSync(join(root, '.scale/logs'), logs, { recursive: true });
    say(`test:scale: the topology's logs are kept in ${logs}`);
  }
  await scale('down');
}
say(ok ? 'test:scale: passed' : 'test:scale: FAILED');
process.exit(ok ? 0 : 1);

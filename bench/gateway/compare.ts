// `BENCH_BASELINE=<dir> npx tsx gateway/compare.ts` (in bench/): the gateway's CPU per
// call in two versions of apps/api, side by side in this process, at the same moments, and the
// CPU every Postgres process on this machine spent per call meanwhile. On a
// machine shared with other work, absolute figures move with the load; two versions measured in
// alternating windows (3 s each, ABBA order, 32 connections, then 1) share whatever load there
// is, so their ratio holds. BENCH_BASELINE is a directory laid out like apps/api (its src/ is imported), e.g.
//   git archive HEAD apps/api | tar -x -C /tmp/meterway-base && ln -s "$PWD/node_modules" /tmp/meterway-base/node_modules
// and then BENCH_BASELINE=/tmp/meterway-base/apps/api. Workspace packages (db, service, contracts)
// are the current ones for both. Each version gets its own fresh database on DATABASE_URL.
// BENCH_ROUNDS (6 windows per version), BENCH_SECONDS (3). BENCH_BASELINE=../apps/api compares the
// current version with itself: the noise floor. BENCH_CAPS=1 gives each version's key the per-key
// controls of issue #18 that its schema has (as overhead.ts does), wide enough to refuse nothing.
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { createDb } from '@meterway/db';
import { createTestDb } from '@meterway/db/testing';
import { wideOpenControls } from './bench-key.js';
import type { CannonSummary, LoadReply, Target } from './load.js';
import { msOfTicks, postgresTicks, ticksBetween } from './phases.js';

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const baseline = process.env.BENCH_BASELINE;
if (!baseline) throw new Error('BENCH_BASELINE must name a directory laid out like apps/api (see the top of this file)');
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const origin = 'https://app.example.com';
const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 });
const load1 = () => loadavg()[0]!.toFixed(1);
const withCaps = process.env.BENCH_CAPS === '1';

function start(file: string, reportsPort: boolean): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(new URL(file, import.meta.url), [], { stdio: 'inherit' });
  if (!reportsPort) return Promise.resolve({ child, port: 0 });
  return new Promise((done) => child.once('message', (message: { port: number }) => done({ child, port: message.port })));
}
const upstream = await start('./upstream.ts', true);
const loader = await start('./load.ts', false);
let nextId = 1;
const pending = new Map<number, (reply: LoadReply) => void>();
loader.child.on('message', (reply: LoadReply) => pending.get(reply.id)?.(reply));
const cannon = (target: Target, connections: number, duration: number) =>
  new Promise<CannonSummary>((done, fail) => {
    const id = nextId++;
    pending.set(id, (reply) => (reply.error ? fail(new Error(reply.error)) : done(reply.cannon!)));
    loader.child.send({ kind: 'cannon', id, target, connections, seconds: duration });
  });

/** One version of the api, built with its own createApp on a fresh database, with a funded key. */
async function boot(name: string, src: string) {
  const load = (path: string) => import(resolve(src, path));
  const [{ createApp }, { migrations, schema }, { organizations, publishableKeys }, { postEntry }, { newKeyValue }, { dollarsToNanos }, { loadApiConfig }] =
    await Promise.all(
      ['app.ts', 'db/index.ts', 'db/schema/index.ts', 'domain/credit/ledger.ts', 'domain/keys/key-value.ts', 'domain/money.ts', 'env.ts'].map(load),
    );
  const testDb = await createTestDb({ schema, migrations, databaseUrl });
  const appDb = await createDb({ schema, databaseUrl: testDb.databaseUrl, dataDir: '', service: 'api' });
  // TRUST_PROXY: the load generator's connections are visitors of their own (load.ts).
  const config = loadApiConfig({
    LOG_LEVEL: 'silent',
    GATEWAY_RATE_LIMIT_PER_MINUTE: '100000000',
    TRUST_PROXY: '1',
    UPSTREAM_BASE_URL: `http://127.0.0.1:${upstream.port}/v1`,
  });
  const app = await createApp({ config, db: appDb });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const organizationId = randomUUID();
  await testDb.db.insert(organizations).values({ id: organizationId, name: `Compare ${name}` });
  await testDb.db.transaction((tx: unknown) =>
    postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollarsToNanos(1_000_000), reference: `cs_${randomUUID()}` }),
  );
  const value = newKeyValue();
  const controls = withCaps ? Object.fromEntries(Object.entries(wideOpenControls).filter(([column]) => column in publishableKeys)) : {};
  await testDb.db.insert(publishableKeys).values({
    id: randomUUID(),
    organizationId,
    name: 'Compare key',
    value,
    spendLimitNanos: dollarsToNanos(1_000_000),
    allowedOrigins: [origin],
    ...controls,
  });
  const target: Target = {
    name,
    url: `${url}/v1/chat/completions`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${value}`, origin },
    body,
  };
  return { target, close: async () => (await app.close(), await appDb.close(), await testDb.close()) };
}

const versions = [await boot('baseline', resolve(baseline, 'src')), await boot('current', new URL('../../apps/api/src', import.meta.url).pathname)];
const cpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
console.log(`gateway compare · ${new Date().toISOString()} · baseline ${baseline} · load average ${load1()}`);
try {
  for (const connections of [32, 1]) {
    for (const version of versions) await cannon(version.target, connections, 2);
    const totals = versions.map(() => ({ calls: 0, cpu: 0, database: 0, ms: 0, windows: [] as string[] }));
    for (let round = 0; round < rounds; round++) {
      // ABBA: neither version always takes the first window of a round.
      for (const index of round % 2 ? [1, 0] : [0, 1]) {
        const version = versions[index]!;
        const [cpu, database, started] = [cpuMs(), postgresTicks(), performance.now()];
        const summary = await cannon(version.target, connections, seconds);
        const calls = summary.ok + summary.non2xx;
        const databaseMs = msOfTicks(ticksBetween(database, postgresTicks()));
        const total = totals[index]!;
        total.calls += calls;
        total.cpu += cpuMs() - cpu;
        total.database += databaseMs;
        total.ms += performance.now() - started;
        total.windows.push(`${Math.round(summary.requestsPerSecond)} req/s ${((cpuMs() - cpu) / calls).toFixed(3)} + ${(databaseMs / calls).toFixed(3)} ms`);
      }
    }
    for (const [index, version] of versions.entries()) {
      const total = totals[index]!;
      console.log(
        `c=${connections} ${version.target.name.padEnd(8)} CPU/call ${(total.cpu / total.calls).toFixed(3)} ms + Postgres ${(total.database / total.calls).toFixed(3)} ms, ` +
          `${Math.round((total.calls / total.ms) * 1000)} req/s  [${total.windows.join(' | ')}]  load ${load1()}`,
      );
    }
  }
} finally {
  for (const version of versions) await version.close();
  upstream.child.kill();
  loader.child.kill();
}

// `npm run bench:gateway --workspace bench`: what the metering gateway adds to a call. Four targets
// in front of one zero-latency OpenAI-compatible upstream, each sequentially (one connection) and
// at 32 connections: (a) the upstream itself, (b) a bare node:http pass-through proxy, (c) the
// gateway with metering on, on Postgres (a fresh database on DATABASE_URL, dropped at the end),
// (d) Portkey's open-source gateway (@portkey-ai/gateway), unmetered, for issue #17's comparison.
// Upstream, proxy, Portkey, load generator and gateway each run in a process of their own; the
// gateway is the api as `npm start` builds and runs it (gateway-process.ts: dist/server.js, its pool
// of 10 connections). Afterwards the recorded rows are checked against the 2xx the gateway sent,
// and the balance against the ledger; when the gateway misses a target, phases.ts shows where the
// time goes.
//
// BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_SAMPLES (3000 timed sequential calls per
// target), BENCH_ROUNDS and BENCH_ROUND_SECONDS (#17's throughput ratio: 6 rounds of a 3 s window
// each for (c) and (d)), BENCH_STREAM=1 (also SSE streams), BENCH_PROFILE=1/0 (profile always/never),
// BENCH_PROVIDERS=2 (the gateway routes the model to two providers, both the upstream).
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { type AddressInfo, createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDb } from '@meterway/db';
import { createTestDb } from '@meterway/db/testing';
import { sql } from 'drizzle-orm';
import { migrations, schema } from '../../apps/api/src/db/index.js';
import { organizations, publishableKeys } from '../../apps/api/src/db/schema/index.js';
import { postEntry } from '../../apps/api/src/domain/credit/ledger.js';
import { newKeyValue } from '../../apps/api/src/domain/keys/key-value.js';
import { dollarsToNanos } from '../../apps/api/src/domain/money.js';
import { wideOpenControls } from './bench-key.js';
import type { CannonSummary, LoadCommand, LoadReply, SequentialSummary, Target } from './load.js';
import { buildGateway, startGateway } from './gateway-process.js';
import { machineTicks, msOfTicks, postgresTicks, processTicks, profileGateway, ticksBetween } from './phases.js';

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const samples = Number(process.env.BENCH_SAMPLES ?? 3000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const roundSeconds = Number(process.env.BENCH_ROUND_SECONDS ?? 3);
const withStream = process.env.BENCH_STREAM === '1';
const providers = process.env.BENCH_PROVIDERS === '2' ? 2 : 1;
const targets = { p50: 1.0, p99: 4, meteredPerSecond: 1500 };
// Issue #17, against Portkey in the same run: our added p50 at most half its, our c=32 req/s 2.5 times its.
const versusPortkey = { p50: 0.5, perSecond: 2.5 };
const origin = 'https://app.example.com';
const chatBody = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 16 };

const load1 = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');
console.log(
  `gateway overhead bench · ${new Date().toISOString()} · Node ${process.version} · ${cpus().length} CPUs · load average ${load1()} (1/5/15 min)` +
    (providers === 2 ? ' · the gateway with two providers' : ''),
);

/** A bench process of its own (tsx's loader is inherited); resolves with the port it reports, if any. */
function start(file: string, args: string[] = [], reportsPort = true): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(new URL(file, import.meta.url), args, { stdio: 'inherit' });
  if (!reportsPort) return Promise.resolve({ child, port: 0 });
  return new Promise((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve({ child, port: message.port }));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}

/**
 * Portkey's gateway from node_modules, as `npx @portkey-ai/gateway` runs it but headless (no UI).
 * It takes no port 0 (`--port=<n>` only), so it gets one found free; it clears the terminal and
 * draws a spinner on stdout, so stdout is dropped (its errors go to stderr). Ready when `/` answers.
 */
async function startPortkey(): Promise<{ child: ChildProcess; port: number }> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const bin = createRequire(import.meta.url).resolve('@portkey-ai/gateway/build/start-server.js');
  const child = spawn(process.execPath, [bin, `--port=${port}`, '--headless'], { stdio: ['ignore', 'ignore', 'inherit'] });
  process.once('exit', () => child.kill()); // no IPC channel to end it with this process, as the forked ones end
  for (let tries = 0; tries < 300; tries++, await sleep(100)) {
    if (child.exitCode !== null) break;
    if (
      await fetch(`http://127.0.0.1:${port}/`).then(
        (response) => response.ok,
        () => false,
      )
    )
      return { child, port };
  }
  child.kill();
  throw new Error(`Portkey's gateway did not answer on port ${port}`);
}

buildGateway();
const children: ChildProcess[] = [];
const upstream = await start('./upstream.ts');
children.push(upstream.child);
const proxy = await start('./proxy.ts', [`http://127.0.0.1:${upstream.port}`]);
children.push(proxy.child);
const portkey = await startPortkey();
children.push(portkey.child);
const loader = await start('./load.ts', [], false);
children.push(loader.child);

let nextId = 1;
const pending = new Map<number, (reply: LoadReply) => void>();
loader.child.on('message', (reply: LoadReply) => pending.get(reply.id)?.(reply));
function ask<K extends LoadCommand['kind']>(command: Omit<Extract<LoadCommand, { kind: K }>, 'id'>): Promise<LoadReply> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, (reply) => {
      pending.delete(id);
      if (reply.error) reject(new Error(reply.error));
      else resolve(reply);
    });
    loader.child.send({ ...command, id });
  });
}

const testDb = await createTestDb({ schema, migrations, databaseUrl });
const upstreamBaseUrl = `http://127.0.0.1:${upstream.port}/v1`;
let stopGateway = async () => {};
let failed = false;
try {
  const gateway = await startGateway({ databaseUrl: testDb.databaseUrl!, upstreamBaseUrl, providers });
  stopGateway = gateway.stop;
  const gatewayUrl = gateway.url;

  // One organisation with plenty of credit and one key with a large budget, as gateway-fixture.ts makes them.
  const organizationId = randomUUID();
  const topUp = dollarsToNanos(1_000_000);
  await testDb.db.insert(organizations).values({ id: organizationId, name: 'Gateway bench' });
  await testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: topUp, reference: `cs_${randomUUID()}` }));
  const keyId = randomUUID();
  const keyValue = newKeyValue();
  await testDb.db.insert(publishableKeys).values({
    id: keyId,
    organizationId,
    name: 'Bench key',
    value: keyValue,
    spendLimitNanos: dollarsToNanos(1_000_000),
    allowedOrigins: [origin],
    // Every per-key control on (issue #18), set wide enough that none refuses the bench's calls,
    // each connection a visitor with an address of its own (load.ts): the allowed model, an output
    // limit, and the per-address and per-end-user caps (the address is the end user: the key takes
    // no end-user tokens).
    ...wideOpenControls,
  });

  const headers = { 'content-type': 'application/json', authorization: `Bearer ${keyValue}`, origin };
  const modes = withStream ? [false, true] : [false];
  type Measured = CannonSummary & { cpuMsPerRequest: number; postgresMsPerRequest: number; busy: number; stolen: number; commits: number; rowsWritten: number };
  // What the bench database did so far (Postgres publishes a backend's counts within a second).
  const databaseWork = async () => {
    const result = (await testDb.db.execute(sql`select xact_commit::float8 as commits, (tup_inserted + tup_updated + tup_deleted)::float8 as written
      from pg_stat_database where datname = current_database()`)) as unknown as { rows: { commits: number; written: number }[] };
    return result.rows[0]!;
  };
  type Row = { name: string; stream: boolean; sequential: SequentialSummary; one: Measured; many: Measured };
  const rows: Row[] = [];
  let clientOk = 0;
  const answerOf = async (target: Target) => {
    const response = await fetch(target.url, { method: 'POST', headers: target.headers, body: target.body });
    return `${response.status} ${await response.text()}`;
  };

  // Issue #17's throughput ratio, (c) and (d) at 32 connections in alternating windows (c d, d c, …),
  // so load coming and going on the machine falls on both alike, not on whichever met it.
  let inTurns: { metered: number; portkey: number } | undefined;
  const meteredAgainstPortkey = async (metered: Target, portkey: Target) => {
    const perSecond = new Map<Target, number[]>([
      [metered, []],
      [portkey, []],
    ]);
    const load = async (target: Target, seconds: number) => {
      const summary = (await ask<'cannon'>({ kind: 'cannon', target, connections: 32, seconds })).cannon!;
      if (target === metered) clientOk += summary.ok;
      return summary.requestsPerSecond;
    };
    for (let round = 0; round < rounds; round++) {
      for (const target of round % 2 ? [portkey, metered] : [metered, portkey]) {
        // Each window after a warm-up of its own: the gateway's stocks of holds fill again, and what
        // the window before left behind (the gateway's last settlements, and its stocks giving their
        // spare holds back a second after its last call) falls in the warm-up, not in the window.
        await load(target, warmupSeconds);
        perSecond.get(target)!.push(await load(target, roundSeconds));
      }
    }
    const mean = (values: number[]) => values.reduce((total, value) => total + value, 0) / values.length;
    const listed = (target: Target) =>
      perSecond
        .get(target)!
        .map((value) => Math.round(value).toLocaleString('en'))
        .join(', ');
    console.log(`#17's throughput windows at c=32, req/s: (c) ${listed(metered)}; (d) ${listed(portkey)}`);
    return { metered: mean(perSecond.get(metered)!), portkey: mean(perSecond.get(portkey)!) };
  };

  for (const stream of modes) {
    const body = JSON.stringify(stream ? { ...chatBody, stream: true } : chatBody);
    const list: Target[] = [
      { name: '(a) upstream directly', url: `http://127.0.0.1:${upstream.port}/v1/chat/completions`, headers, body },
      { name: '(b) node:http proxy', url: `http://127.0.0.1:${proxy.port}/v1/chat/completions`, headers, body },
      { name: '(c) gateway, metered', url: `${gatewayUrl}/v1/chat/completions`, headers, body },
    ];
    // (d) Portkey, the documented way to an OpenAI-compatible host: provider and host per request.
    // Its streams fail as installed, with @hono/node-server 1.19 (a 500, `TypeError: immutable`,
    // Portkey-AI/gateway#1389), so it takes the JSON calls only, once it has shown it passes the
    // upstream's answer through.
    if (!stream) {
      const portkeyHeaders = { ...headers, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstreamBaseUrl };
      const target = { name: '(d) Portkey, unmetered', url: `http://127.0.0.1:${portkey.port}/v1/chat/completions`, headers: portkeyHeaders, body };
      const [expected, got] = [await answerOf(list[0]!), await answerOf(target)];
      if (!expected.startsWith('200 ') || got !== expected)
        throw new Error(`${target.name} answered ${got.slice(0, 300)}\nnot the upstream's ${expected.slice(0, 300)}`);
      list.push(target);
    }
    // The CPU the serving process spent per request (the upstream's not included).
    const servers = [upstream.child.pid, proxy.child.pid, gateway.child.pid, portkey.child.pid];
    const cpuMs = (target: Target) => msOfTicks(processTicks(servers[list.indexOf(target)]) ?? Number.NaN);
    const cannon = async (target: Target, connections: number, duration: number): Promise<Measured> => {
      const [cpu, postgres, machine, work] = [cpuMs(target), postgresTicks(), machineTicks(), await databaseWork()];
      const summary = (await ask<'cannon'>({ kind: 'cannon', target, connections, seconds: duration })).cannon!;
      if (target === list[2]) clientOk += summary.ok;
      const served = Math.max(1, summary.ok + summary.non2xx);
      const [machineAfter, cores, workAfter] = [machineTicks(), cpus().length, await databaseWork()];
      const share = (ticks: (m: NonNullable<typeof machine>) => number) =>
        machine && machineAfter ? (cores * (ticks(machineAfter) - ticks(machine))) / (machineAfter.total - machine.total) : Number.NaN;
      return {
        ...summary,
        cpuMsPerRequest: (cpuMs(target) - cpu) / served,
        postgresMsPerRequest: msOfTicks(ticksBetween(postgres, postgresTicks())) / served,
        busy: share((m) => m.busy),
        stolen: share((m) => m.steal),
        commits: (workAfter.commits - work.commits) / served,
        rowsWritten: (workAfter.written - work.written) / served,
      };
    };
    const measured = new Map<string, { one: Measured; many: Measured }>();
    for (const target of list) {
      await cannon(target, 1, warmupSeconds);
      const one = await cannon(target, 1, seconds);
      await cannon(target, 32, warmupSeconds);
      const many = await cannon(target, 32, seconds);
      measured.set(target.name, { one, many });
      console.log(
        `${stream ? 'stream ' : ''}${target.name.padEnd(24)} c=1 ${Math.round(one.requestsPerSecond)} req/s (p50 ${one.p50} ms, p99 ${one.p99} ms)  ` +
          `c=32 ${Math.round(many.requestsPerSecond)} req/s (p50 ${many.p50} ms, p99 ${many.p99} ms)  load ${load1()}`,
      );
    }
    // Sub-millisecond sequential latencies, the targets taken in turn (200 warm-up rounds).
    const timed = (await ask<'sequential'>({ kind: 'sequential', targets: list, samples, warmup: 200 })).sequential!;
    clientOk += timed[list[2]!.name]!.ok;
    if (!stream) inTurns = await meteredAgainstPortkey(list[2]!, list[3]!);
    for (const target of list) rows.push({ name: target.name, stream, sequential: timed[target.name]!, ...measured.get(target.name)! });
  }

  // The table.
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const int = (value: number) => Math.round(value).toLocaleString('en');
  console.log(
    `\nsequential: ${samples} timed calls per target, round-robin across targets; c=1 and c=32: autocannon ${seconds} s after ${warmupSeconds} s warm-up;`,
  );
  console.log("CPU/req: CPU time of the serving process (upstream; proxy, gateway, Portkey alone) per request; DB CPU/req: every Postgres process's;");
  console.log("DB commits, rows/req: the bench database's transactions and rows inserted, updated or deleted per request (pg_stat_database)");
  console.log('busy at c=32: the cores in use (2 = the whole machine), of them stolen by the host');
  console.log(`load average ${load1()} (1/5/15 min)\n`);
  const header = [
    'target',
    'seq p50',
    'seq p90',
    'seq p99',
    'c=1 req/s',
    'c=32 p50',
    'c=32 p99',
    'c=32 req/s',
    'CPU/req c=1, 32',
    'DB CPU/req c=1, 32',
    'DB commits, rows/req c=1 · 32',
    'busy (stolen) c=32',
    'errors / non-2xx',
  ];
  const table = rows.map((row) => [
    `${row.stream ? 'stream ' : ''}${row.name}`,
    ms(row.sequential.p50),
    ms(row.sequential.p90),
    ms(row.sequential.p99),
    int(row.one.requestsPerSecond),
    `${row.many.p50} ms`,
    `${row.many.p99} ms`,
    int(row.many.requestsPerSecond),
    `${row.one.cpuMsPerRequest.toFixed(3)}, ${row.many.cpuMsPerRequest.toFixed(3)} ms`,
    `${row.one.postgresMsPerRequest.toFixed(3)}, ${row.many.postgresMsPerRequest.toFixed(3)} ms`,
    `${row.one.commits.toFixed(2)}, ${row.one.rowsWritten.toFixed(1)} · ${row.many.commits.toFixed(2)}, ${row.many.rowsWritten.toFixed(1)}`,
    `${row.many.busy.toFixed(2)} (${row.many.stolen.toFixed(2)})`,
    `${row.one.errors + row.many.errors + row.one.timeouts + row.many.timeouts} / ${row.one.non2xx + row.many.non2xx + row.sequential.failed}`,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...table.map((cells) => cells[column]!.length)));
  for (const cells of [header, ...table])
    console.log(cells.map((cell, column) => (column ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join('  '));

  console.log('\nadded over (a), sequential:');
  let missed = false;
  for (const stream of modes) {
    const [direct, ...others] = rows.filter((row) => row.stream === stream);
    for (const row of others) {
      const p50 = row.sequential.p50 - direct!.sequential.p50;
      const p99 = row.sequential.p99 - direct!.sequential.p99;
      const judged = row.name.startsWith('(c)') && !stream;
      if (judged && (p50 > targets.p50 || p99 > targets.p99)) missed = true;
      console.log(
        `  ${`${stream ? 'stream ' : ''}${row.name}`.padEnd(31)} p50 +${ms(p50)}  p99 +${ms(p99)}  mean +${ms(row.sequential.mean - direct!.sequential.mean)}` +
          (judged ? `   (targets p50 ≤ ${targets.p50} ms, p99 ≤ ${targets.p99} ms: ${p50 <= targets.p50 && p99 <= targets.p99 ? 'met' : 'MISSED'})` : ''),
      );
    }
  }
  const [direct, metered, portkeyRow] = ['(a)', '(c)', '(d)'].map((label) => rows.find((row) => !row.stream && row.name.startsWith(label))!);
  if (metered!.many.requestsPerSecond < targets.meteredPerSecond) missed = true;
  console.log(
    `metered requests/s at c=32: ${int(metered!.many.requestsPerSecond)} (target ≥ ${int(targets.meteredPerSecond)}: ${metered!.many.requestsPerSecond >= targets.meteredPerSecond ? 'met' : 'MISSED'})`,
  );

  // Issue #17: the metered gateway against Portkey's, unmetered, in this same run.
  const added = (row: Row) => row.sequential.p50 - direct!.sequential.p50;
  const p50Ratio = added(metered!) / added(portkeyRow!);
  const perSecondRatio = inTurns!.metered / inTurns!.portkey;
  if (p50Ratio > versusPortkey.p50 || perSecondRatio < versusPortkey.perSecond) missed = true;
  console.log('\n(c) metered against (d) Portkey, unmetered, same run:');
  console.log(
    `  added p50 +${ms(added(metered!))} against +${ms(added(portkeyRow!))}: ${p50Ratio.toFixed(2)}× (target ≤ ${versusPortkey.p50}×: ${p50Ratio <= versusPortkey.p50 ? 'met' : 'MISSED'})`,
  );
  console.log(
    `  requests/s at c=32 (${rounds} alternating ${roundSeconds} s windows each) ${int(inTurns!.metered)} against ${int(inTurns!.portkey)}: ${perSecondRatio.toFixed(2)}× (target ≥ ${versusPortkey.perSecond}×: ${perSecondRatio >= versusPortkey.perSecond ? 'met' : 'MISSED'})`,
  );

  // Correctness: every 2xx the gateway sent is one recorded call, and the money adds up.
  for (let wait = 0; wait < 100; wait++) {
    const open = (await testDb.db.execute(sql`select count(*)::int as n from app.reservations`)) as unknown as { rows: { n: number }[] };
    if (open.rows[0]!.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const [facts] = (
    (await testDb.db.execute(sql`
      select (select count(*) from app.chat_completions)::int as completions,
        (select coalesce(sum(total_cost_nanos), 0) from app.chat_completions)::text as charged,
        (select count(*) from app.reservations)::int as reservations,
        b.balance_nanos::text as balance, b.reserved_nanos::text as reserved,
        (select coalesce(sum(amount_nanos), 0) from app.credit_entries e where e.organization_id = b.organization_id)::text as ledger,
        (select coalesce(sum(spent_nanos), 0) from app.key_spend where publishable_key_id = ${keyId})::text as spent
      from app.credit_balances b where b.organization_id = ${organizationId}`)) as unknown as {
      rows: { completions: number; charged: string; reservations: number; balance: string; reserved: string; ledger: string; spent: string }[];
    }
  ).rows;
  const counted = await gateway.counts();
  await gateway.stop();
  const { one, many, sequential } = portkeyRow!;
  const portkeyFailures = one.errors + many.errors + one.timeouts + many.timeouts + one.non2xx + many.non2xx + sequential.failed;
  const checks = [
    [
      `chat_completions rows ${facts!.completions} = calls the gateway admitted ${counted.admitted} (client received ${clientOk} answers)`,
      facts!.completions === counted.admitted && clientOk <= counted.admitted,
    ],
    [`Σ recorded cost ${facts!.charged} n$ = what the gateway counted as charged ${counted.chargedNanos} n$`, Number(facts!.charged) === counted.chargedNanos],
    [`balance ${facts!.balance} = ledger sum ${facts!.ledger} n$`, facts!.balance === facts!.ledger],
    [`balance = top-up ${topUp} − Σ recorded cost ${facts!.charged} n$`, BigInt(facts!.balance) === topUp - BigInt(facts!.charged)],
    [`key spend ${facts!.spent} = Σ recorded cost n$`, facts!.spent === facts!.charged],
    [`no reservation left (${facts!.reservations} rows, ${facts!.reserved} n$ held)`, facts!.reservations === 0 && facts!.reserved === '0'],
    [`Portkey answered every call 2xx (errors / non-2xx: ${portkeyFailures})`, portkeyFailures === 0],
  ] as const;
  console.log('\ncorrectness after the run:');
  for (const [text, ok] of checks) console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${text}`);
  if (checks.some(([, ok]) => !ok)) failed = true;

  const profile = process.env.BENCH_PROFILE;
  if (profile === '1' || (missed && profile !== '0')) {
    console.log(`\n${missed ? 'targets missed: ' : ''}where the time goes`);
    // The replays run the api's own functions in this process, on a pool sized as the api's.
    const appDb = await createDb({ schema, databaseUrl: testDb.databaseUrl, dataDir: '', service: 'api' });
    await profileGateway({
      db: appDb.db,
      databaseUrl: testDb.databaseUrl!,
      keyValue,
      origin,
      body: chatBody,
      upstreamBaseUrl,
      samples: Math.min(samples, 2000),
      profiledGateway: () => startGateway({ databaseUrl: testDb.databaseUrl!, upstreamBaseUrl, providers, inspect: true }),
      cannon: async (url, connections, duration) => {
        const target = { name: 'gateway', url: `${url}/v1/chat/completions`, headers, body: JSON.stringify(chatBody) };
        return (await ask<'cannon'>({ kind: 'cannon', target, connections, seconds: duration })).cannon!;
      },
      pids: { load: loader.child.pid, upstream: upstream.child.pid },
    });
    await appDb.close();
    const after = (await testDb.db.execute(sql`
      select b.balance_nanos = (select coalesce(sum(amount_nanos), 0) from app.credit_entries e where e.organization_id = b.organization_id) as equal
      from app.credit_balances b where b.organization_id = ${organizationId}`)) as unknown as { rows: { equal: boolean }[] };
    console.log(`\nafter profiling: balance = ledger sum: ${after.rows[0]?.equal ? 'ok' : 'FAIL'}`);
    if (!after.rows[0]?.equal) failed = true;
  }
  console.log(`\nload average at the end ${load1()} (1/5/15 min)`);
} finally {
  await stopGateway();
  await testDb.close();
  for (const child of children) child.kill();
}
if (failed) process.exitCode = 1;

// Where a metered call's time goes, for bench/gateway/overhead.ts. First the floors: one round
// trip to Postgres, the key lookup as drizzle builds it and prepared, one update of the hot balance
// row (alone, and by 32 callers: the ceiling of any design writing that row per call), the upstream
// by fetch and by the gateway's provider. Then the route's steps replayed in this process with the api's
// own functions, pool and provider, one timer per phase (key lookup, rate limit, parse + tokenize,
// admission, upstream, settlement), sequentially with the node CPU and SQL statements of each,
// then by 32 callers at once. Last, a 32-connection run against the real gateway under the CPU
// profiler (a gateway process of its own, with the inspector on), with pg_stat_activity sampled
// (what the bench database's backends are doing) and the CPU each process used.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatRequestSchema } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq, isNull, sql } from 'drizzle-orm';
import pg from 'pg';
import { publishableKeys } from '../../apps/api/src/db/schema/index.js';
import { keyFinder, originAllowed } from '../../apps/api/src/domain/metering/find-key.js';
import { createMeter } from '../../apps/api/src/domain/metering/meter.js';
import type { Metered, Settled } from '../../apps/api/src/domain/metering/settlement.js';
import { loadPricing } from '../../apps/api/src/gateway/pricing.js';
import type { ChatBody } from '../../apps/api/src/gateway/providers/model-provider.js';
import { openAiCompatible } from '../../apps/api/src/gateway/providers/openai-compatible.js';
import { worstCaseOf } from '../../apps/api/src/gateway/worst-case.js';
import type { GatewayProcess } from './gateway-process.js';
import type { CannonSummary } from './load.js';

type Input = {
  db: Database;
  databaseUrl: string;
  keyValue: string;
  origin: string;
  body: ChatBody;
  upstreamBaseUrl: string;
  samples: number;
  /** A run against a gateway at `url` from the load process. */
  cannon: (url: string, connections: number, seconds: number) => Promise<CannonSummary>;
  /** A gateway process of its own, with the inspector on, for the CPU profile. */
  profiledGateway: () => Promise<GatewayProcess>;
  pids: { load: number | undefined; upstream: number | undefined };
};

const phases = ['key lookup', 'rate limit', 'parse + tokenize', 'admission', 'upstream (provider)', 'settlement'] as const;
type Phase = (typeof phases)[number];

// Every statement the pool sends goes through pg.Client#query (BEGIN and COMMIT included).
let statements = 0;
function countStatements(): () => void {
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  prototype.query = function (this: unknown, ...args: unknown[]) {
    statements++;
    return original.apply(this, args);
  };
  return () => {
    prototype.query = original;
  };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const ms = (value: number) => `${value.toFixed(2)} ms`.padStart(9);

export async function profileGateway(input: Input): Promise<void> {
  const { db } = input;
  const pricing = loadPricing(new URL('../../apps/api/pricing.json', import.meta.url).pathname);
  const price = pricing.models.get(input.body.model)!;
  const provider = openAiCompatible({ baseUrl: input.upstreamBaseUrl, timeoutMs: 60_000, idleTimeoutMs: 30_000 });
  const meter = createMeter({ db, reservationTtlMs: 10 * 60 * 1000, onSweepError: (error) => console.error(error) });
  const findKey = keyFinder(db);
  // The api settles after the answer; the replay waits for it to time the phase.
  const settle = (call: Metered) =>
    new Promise<Settled | undefined>((resolve, reject) => meter.settle(call, { retryUntil: 0, onSettled: resolve, onRetry: () => undefined, onError: reject }));

  // The floors: one round trip to Postgres through the pool, with the simple protocol (no
  // parameters) and with the extended one drizzle uses for any query with parameters (parse, plan,
  // execute each time: the statements are unnamed); and the upstream call by other clients.
  const timeSequential = async (name: string, run: () => Promise<unknown>, count = 1000) => {
    const durations: number[] = [];
    let cpu = process.cpuUsage();
    for (let i = 0; i < count + 200; i++) {
      if (i === 200) cpu = process.cpuUsage();
      const started = performance.now();
      await run();
      if (i >= 200) durations.push(performance.now() - started);
    }
    const used = process.cpuUsage(cpu);
    durations.sort((x, y) => x - y);
    const perCall = `${Math.round((used.user + used.system) / count)} µs`;
    console.log(`  ${name.padEnd(58)} p50 ${ms(quantile(durations, 0.5))}  p99 ${ms(quantile(durations, 0.99))}  node CPU ${perCall.padStart(7)} per call`);
  };
  console.log('floors, sequential:');
  await timeSequential('select 1 (simple protocol)', () => db.execute(sql`select 1`));
  await timeSequential('select $1 (extended protocol, as drizzle sends parameters)', () => db.execute(sql`select ${1}::int`));
  const key = await findKey(input.keyValue);
  await timeSequential('key select as drizzle builds it on every call', () =>
    db
      .select()
      .from(publishableKeys)
      .where(and(eq(publishableKeys.value, input.keyValue), isNull(publishableKeys.deletedAt)))
      .limit(1),
  );
  await timeSequential('the key lookup prepared once (keyFinder, named)', () => findKey(input.keyValue));
  await timeSequential("autocommit update of the organisation's balance row", () =>
    db.execute(sql`update app.credit_balances set reserved_nanos = reserved_nanos where organization_id = ${key!.organizationId}`),
  );
  const upstreamUrl = `${input.upstreamBaseUrl}/chat/completions`;
  const upstreamBody = JSON.stringify(input.body);
  const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: upstreamBody };
  await timeSequential('upstream call by fetch() + JSON.parse', async () => (await fetch(upstreamUrl, post)).json());
  await timeSequential('upstream call by the gateway provider (undici)', () => provider.complete(input.body, new AbortController().signal));

  // The ceiling of any design that writes the organisation's balance row in each call: 32 callers
  // updating that one row in autocommit statements (the lock is held through the commit's flush).
  {
    let updates = 0;
    const until = performance.now() + 3000;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (performance.now() < until) {
          await db.execute(sql`update app.credit_balances set reserved_nanos = reserved_nanos where organization_id = ${key!.organizationId}`);
          updates++;
        }
      }),
    );
    console.log(`  ${'one-row autocommit updates, 32 callers on the pool of 10'.padEnd(58)} ${Math.round(updates / 3).toLocaleString('en')} updates/s`);
  }

  /** The route's steps in its order; each phase's duration and statements go to `record`. */
  async function call(record: (phase: Phase, duration: number, sent: number, cpu: number) => void) {
    let mark = performance.now();
    let sent = statements;
    let cpu = process.cpuUsage();
    const done = (phase: Phase) => {
      const now = performance.now();
      const used = process.cpuUsage(cpu);
      record(phase, now - mark, statements - sent, (used.user + used.system) / 1000);
      mark = now;
      sent = statements;
      cpu = process.cpuUsage();
    };
    const key = await findKey(input.keyValue);
    if (!key) throw new Error('bench key not found');
    done('key lookup');
    if (!originAllowed(key.allowedOrigins, input.origin)) throw new Error('origin refused');
    await meter.rate.consume(key.organizationId, key.id, 100_000_000, new Date());
    done('rate limit');
    const body = chatRequestSchema.parse(input.body) as ChatBody;
    const worst = worstCaseOf(body, price);
    const estimatedInputTokens = worst.inputTokens;
    done('parse + tokenize');
    const caller = { client: '127.0.0.1', endUser: null };
    const admission = await meter.admit({
      presented: { key, value: input.keyValue },
      prices: price,
      inputTokens: estimatedInputTokens,
      choices: worst.choices,
      requestedMaxTokens: worst.maxTokens,
      maxOutputTokens: price.maxOutputTokens,
      caller,
      now: new Date(),
    });
    done('admission');
    const result = await provider.complete({ ...body, max_tokens: admission.maxTokens }, new AbortController().signal);
    done('upstream (provider)');
    await settle({
      reservationId: admission.reservationId,
      organizationId: key.organizationId,
      publishableKeyId: key.id,
      periodStart: admission.periodStart,
      completionId: `chatcmpl-${randomUUID()}`,
      model: body.model,
      estimatedInputTokens,
      inputTokens: result.usage?.promptTokens ?? estimatedInputTokens,
      cachedInputTokens: result.usage?.cachedTokens ?? 0,
      outputTokens: result.usage?.completionTokens ?? 0,
      usageEstimated: !result.usage,
      prices: price,
      priceVersion: pricing.version,
      provider: 'bench',
      caller,
      now: new Date(),
    });
    done('settlement');
  }

  async function replay(callers: number, total: number, warmup: number) {
    const durations = new Map<Phase, number[]>(phases.map((phase) => [phase, []]));
    const sent = new Map<Phase, number>(phases.map((phase) => [phase, 0]));
    const cpu = new Map<Phase, number>(phases.map((phase) => [phase, 0]));
    let measuring = false;
    const record = (phase: Phase, duration: number, count: number, used: number) => {
      if (!measuring) return;
      durations.get(phase)!.push(duration);
      sent.set(phase, sent.get(phase)! + count);
      cpu.set(phase, cpu.get(phase)! + used);
    };
    for (let i = 0; i < warmup; i++) await call(record);
    measuring = true;
    let left = total;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: callers }, async () => {
        while (left-- > 0) await call(record);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const means = phases.map((phase) => durations.get(phase)!.reduce((sum, value) => sum + value, 0) / total);
    const whole = means.reduce((sum, value) => sum + value, 0);
    console.log(
      `\nthe route's steps replayed, ${callers === 1 ? 'one at a time' : `${callers} callers at once`}: ${total} calls, ${Math.round(total / seconds)} calls/s`,
    );
    const sequential = callers === 1;
    // Process CPU per phase is meaningful one call at a time only (other calls run meanwhile).
    console.log(
      `  ${'phase'.padEnd(22)} ${'p50'.padStart(9)} ${'p99'.padStart(9)} ${'mean'.padStart(9)}  share${sequential ? '  node CPU (mean)  SQL statements' : ''}`,
    );
    const extra = (cpuMs: number, count: number) => (sequential ? `  ${ms(cpuMs / total).padStart(15)}  ${(count / total).toFixed(1).padStart(14)}` : '');
    for (const [index, phase] of phases.entries()) {
      const sorted = durations.get(phase)!.sort((x, y) => x - y);
      console.log(
        `  ${phase.padEnd(22)} ${ms(quantile(sorted, 0.5))} ${ms(quantile(sorted, 0.99))} ${ms(means[index]!)}  ${`${Math.round((100 * means[index]!) / whole)} %`.padStart(5)}${extra(cpu.get(phase)!, sent.get(phase)!)}`,
      );
    }
    const sum = (map: Map<Phase, number>) => [...map.values()].reduce((total, value) => total + value, 0);
    console.log(`  ${'whole call'.padEnd(22)} ${''.padStart(9)} ${''.padStart(9)} ${ms(whole)}       ${extra(sum(cpu), sum(sent))}`);
  }

  const restore = countStatements();
  try {
    await replay(1, input.samples, 200);
    await replay(32, input.samples * 2, 0);
  } finally {
    restore();
  }

  // The real gateway at 32 connections (a process of its own, warmed up for 2 s): its CPU profile,
  // what the backends do, CPU per process.
  const gateway = await input.profiledGateway();
  const connections = Number(process.env.BENCH_PROFILE_CONNECTIONS ?? 32);
  await input.cannon(gateway.url, connections, 2);
  const activity = new pg.Client({ connectionString: input.databaseUrl });
  await activity.connect();
  const states = new Map<string, number>();
  let snapshots = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const result = await activity.query<{ what: string; n: number }>(`
        select case when state = 'active' and wait_event is null then 'running a statement'
                    when state = 'active' then 'waiting: ' || wait_event_type || ' ' || wait_event
                    when state = 'idle in transaction' then 'in a transaction, waiting for node'
                    else state || ', waiting for node' end as what, count(*)::int as n
        from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
        group by 1`);
      for (const row of result.rows) states.set(row.what, (states.get(row.what) ?? 0) + row.n);
      snapshots++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const backends = (
    await activity.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`,
    )
  ).rows.map((row) => row.pid);

  const before = {
    machine: machineTicks(),
    gateway: processTicks(gateway.child.pid),
    load: processTicks(input.pids.load),
    upstream: processTicks(input.pids.upstream),
    postgres: ticksOf(backends),
  };
  const started = performance.now();
  const { result: run, profile } = await gateway.profile(() => input.cannon(gateway.url, connections, 5));
  const wall = (performance.now() - started) / 1000;
  const after = {
    machine: machineTicks(),
    gateway: processTicks(gateway.child.pid),
    load: processTicks(input.pids.load),
    upstream: processTicks(input.pids.upstream),
    postgres: ticksOf(backends),
  };
  await gateway.stop();
  sampling = false;
  await sampler;
  await activity.end();

  console.log(
    `\nthe gateway at c=${connections} for 5 s under the profiler: ${Math.round(run.requestsPerSecond)} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms (the profiler slows it)`,
  );
  const percent = (ticks: number) => `${Math.round(msOfTicks(ticks) / 10 / wall)} %`;
  const machineBusy = after.machine && before.machine ? (after.machine.busy - before.machine.busy) / (after.machine.total - before.machine.total) : undefined;
  const gatewayTicks = delta(before.gateway, after.gateway);
  const loadTicks = delta(before.load, after.load);
  const upstreamTicks = delta(before.upstream, after.upstream);
  const backendTicks = ticksBetween(before.postgres, after.postgres);
  console.log(`  CPU over the run (100 % = one core; the machine has ${cpus().length}):`);
  if (gatewayTicks !== undefined) console.log(`    gateway process (node)            ${percent(gatewayTicks)}`);
  console.log(`    Postgres, the bench's ${backends.length} backends  ${percent(backendTicks)}`);
  if (loadTicks !== undefined) console.log(`    load generator (autocannon)       ${percent(loadTicks)}`);
  if (upstreamTicks !== undefined) console.log(`    upstream                          ${percent(upstreamTicks)}`);
  if (machineBusy !== undefined) console.log(`    whole machine busy                ${Math.round(machineBusy * 100 * cpus().length)} % (others included)`);

  console.log(`  the bench database's backends, average over ${snapshots} samples of pg_stat_activity:`);
  for (const [what, total] of [...states].sort((x, y) => y[1] - x[1])) console.log(`    ${(total / snapshots).toFixed(2).padStart(6)}  ${what}`);

  summariseProfile(profile as { nodes: ProfileNode[] });
  await meter.close();
}

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number };

/** Self time of the gateway process by package and by function, from the sampled CPU profile. */
function summariseProfile(profile: { nodes: ProfileNode[] }) {
  const file = join(tmpdir(), `meterway-gateway-${Date.now()}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const where = (url: string, name: string) => {
    if (!url) return name === '(garbage collector)' ? 'garbage collector' : name === '(idle)' ? 'idle' : 'V8 / native';
    if (url.startsWith('node:')) return 'node core (http, net, streams)';
    const module = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
    if (module) return module;
    const workspace = url.match(/\/(apps\/[^/]+|packages\/[^/]+)\//)?.[1];
    return workspace ?? url;
  };
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (!hits) continue;
    const place = where(node.callFrame.url, node.callFrame.functionName);
    if (place === 'idle') continue;
    total += hits;
    byPlace.set(place, (byPlace.get(place) ?? 0) + hits);
    const name = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url ? `${node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/main\//, '')}:${node.callFrame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
  }
  const top = (map: Map<string, number>, count: number) => [...map].sort((x, y) => y[1] - x[1]).slice(0, count);
  console.log(`  gateway CPU (busy samples, idle left out) by where the code lives:`);
  for (const [place, hits] of top(byPlace, 12)) console.log(`    ${`${((100 * hits) / total).toFixed(1)} %`.padStart(7)}  ${place}`);
  console.log(`  hottest functions (self time):`);
  for (const [name, hits] of top(byFunction, 12)) console.log(`    ${`${((100 * hits) / total).toFixed(1)} %`.padStart(7)}  ${name}`);
  console.log(`  profile written to ${file} (open in Chrome DevTools › Performance)`);
}

/** Milliseconds of CPU in this many /proc ticks (USER_HZ = 100). */
export const msOfTicks = (ticks: number) => ticks * 10;

export function processTicks(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return undefined;
  }
}

/** Each process's CPU ticks; one gone (a backend whose idle connection closed) is left out. */
function ticksOf(pids: number[]): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    const used = processTicks(pid);
    if (used !== undefined) ticks.set(pid, used);
  }
  return ticks;
}

/** The ticks the processes there at both readings used between them. */
export const ticksBetween = (from: Map<number, number>, to: Map<number, number>) =>
  [...to].reduce((sum, [pid, ticks]) => sum + (from.has(pid) ? ticks - from.get(pid)! : 0), 0);

/** The CPU ticks of each Postgres process on this machine (backends, WAL writer, checkpointer…): with ticksBetween, the database's share of a run. */
export function postgresTicks(): Map<number, number> {
  const pids = readdirSync('/proc').filter((entry) => {
    try {
      return /^\d+$/.test(entry) && readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres';
    } catch {
      return false; // The process ended between the listing and the read.
    }
  });
  return ticksOf(pids.map(Number));
}

/** The machine's ticks since boot: busy (steal included, since the host took them), stolen, and all. */
export function machineTicks(): { busy: number; steal: number; total: number } | undefined {
  try {
    const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const ticks = values.map(Number);
    const total = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0);
    return { busy: total - ticks[3]! - ticks[4]!, steal: ticks[7]!, total };
  } catch {
    return undefined;
  }
}

const delta = (from: number | undefined, to: number | undefined) => (from === undefined || to === undefined ? undefined : to - from);

import { type PrivatePostgres, startPrivatePostgres } from '@meterway/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletions } from '../db/schema/index.js';
import { callGateway } from './gateway-client.js';
import { checkMoney, openReservations } from './money-invariants.js';
import { postgresUrlFor, report, soakModel, soakOrigin, type SoakStack, startSoakStack } from './soak-stack.js';

// Only where the service suites run on Postgres (CI's second pass), though this file brings its own server.
const enabled = Boolean(postgresUrlFor('postgres restart'));
/** Short-lived holds, so the api's own sweeper gives back what could not be settled within the test. */
// Settlements are retried until three quarters of it: longer than the database is away here.
const reservationTtlMs = 20_000;

type Phase = 'up' | 'down' | 'back';
type Seen = {
  phase: Phase;
  path: '/v1' | '/bff';
  ms: number;
  status: number;
  retryAfter?: string | null;
  contentType?: string | null;
  code?: string;
  complete?: boolean;
  failure?: string;
};

describe.skipIf(!enabled)('Postgres crashes under load (needs DATABASE_URL; crashes a private server of its own)', () => {
  let postgres: PrivatePostgres;
  let stack: SoakStack;
  let cookie: string;
  let key: string;
  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    stack = await startSoakStack({
      serverUrl: postgres.url,
      instances: 2,
      identity: true,
      upstreamChunkDelayMs: 60,
      env: { UPSTREAM_TIMEOUT_MS: '5000', RESERVATION_TTL_MS: String(reservationTtlMs) },
    });
    cookie = stack.signUp();
    key = (await stack.account({ creditDollars: 100, budgetDollars: 100 })).value;
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await postgres?.destroy();
  }, 60_000);

  it('answers 503 with Retry-After while the database is down, and serves again once it has recovered, without a restart', async () => {
    const seen: Seen[] = [];
    let phase: Phase = 'up';
    let running = true;
    const pids = stack.instances.map((instance) => instance.pid);

    async function gatewayWorker(worker: number) {
      for (let i = 0; running; i++) {
        const at = phase;
        const sentAt = Date.now();
        // A call that hangs is recorded as one (status 0), not left to time the test out.
        const outcome = await callGateway(
          stack.instances[(worker + i) % 2]!.url,
          key,
          soakOrigin,
          { model: soakModel, stream: i % 2 === 0, max_tokens: 16 },
          AbortSignal.timeout(10_000),
        );
        seen.push({ phase: at, path: '/v1', ms: Date.now() - sentAt, ...outcome });
      }
    }
    async function consoleWorker(worker: number) {
      for (let i = 0; running; i++) {
        const at = phase;
        const sentAt = Date.now();
        try {
          const response = await fetch(`${stack.instances[(worker + i) % 2]!.url}/bff/me`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) });
          const body = (await response.json()) as { code?: string };
          seen.push({
            phase: at,
            path: '/bff',
            ms: Date.now() - sentAt,
            status: response.status,
            retryAfter: response.headers.get('retry-after'),
            contentType: response.headers.get('content-type'),
            ...(body.code ? { code: body.code } : {}),
          });
        } catch (error) {
          seen.push({ phase: at, path: '/bff', ms: Date.now() - sentAt, status: 0, retryAfter: null, contentType: null, failure: (error as Error).message });
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    const workers = [...Array.from({ length: 6 }, (_, i) => gatewayWorker(i)), consoleWorker(0), consoleWorker(1)];
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const answered = (path: Seen['path'], status: number, since: number) =>
      seen.slice(since).filter((item) => item.path === path && item.status === status).length;

    await pause(1500);
    // Four calls the provider is still answering when the database goes, so they finish while it
    // is away and cannot be settled: two streams and two JSON calls.
    stack.upstream.setMode('slow');
    const acrossStop = Array.from({ length: 4 }, (_, i) =>
      callGateway(stack.instances[i % 2]!.url, key, soakOrigin, { model: soakModel, stream: i < 2, max_tokens: 23 }, AbortSignal.timeout(20_000)),
    );
    for (let waited = 0; [...stack.upstream.calls.values()].filter((call) => call.maxTokens === 23).length < 4; waited += 10) {
      if (waited > 10_000) throw new Error('the four calls did not reach the provider');
      await pause(10);
    }
    // A crash: every server process killed at once, no checkpoint; the next start replays the WAL.
    await postgres.stop('immediate');
    stack.upstream.setMode('ok');
    phase = 'down';
    const downFrom = seen.length;
    // At least two seconds away, and long enough for every worker to meet the missing database on both instances.
    for (let waited = 0; waited < 2000 || (waited < 15_000 && (answered('/v1', 503, downFrom) < 20 || answered('/bff', 503, downFrom) < 4)); waited += 100)
      await pause(100);
    const health = await Promise.all(stack.instances.map((instance) => fetch(`${instance.url}/healthz`).then((response) => response.status)));
    const inFlight = await Promise.all(acrossStop);
    await postgres.start();
    phase = 'back';
    const backFrom = seen.length;
    for (let waited = 0; waited < 30_000 && (answered('/v1', 200, backFrom) < 20 || answered('/bff', 200, backFrom) < 4); waited += 100) await pause(100);
    running = false;
    await Promise.all(workers);

    const count = (items: Seen[]) =>
      items.reduce<Record<string, number>>(
        (counts, item) => ({ ...counts, [`${item.path} ${item.status}`]: (counts[`${item.path} ${item.status}`] ?? 0) + 1 }),
        {},
      );
    // Phases are when a request was sent; one sent just before the stop may meet the missing database.
    const byPhase = Object.fromEntries((['up', 'down', 'back'] as const).map((name) => [name, count(seen.filter((item) => item.phase === name))]));
    const stillRunning = stack.instances.map((instance) => [instance.pid, instance.running()]);

    // Money: a call answered while the database was away is settled once it is back (settlements are
    // retried); the rest of the holds go back. Nothing is charged twice and nothing stays held.
    for (let waited = 0; waited < reservationTtlMs * 3 && (await openReservations(stack.db.db)) > 0; waited += 100) await pause(100);
    const exitCodes = await Promise.all(stack.instances.map((instance) => instance.stop()));
    const recovered = /not properly shut down; automatic recovery in progress/.test(postgres.serverLog());
    const money = await checkMoney(stack.db.db, { settled: true });
    const upstreamCalls = stack.upstream.calls.size;
    const charged = (await stack.db.db.select({ id: chatCompletions.id }).from(chatCompletions)).length;
    report('postgres restart', {
      requestsSent: seen.length,
      answersByPhase: byPhase,
      slowest503Ms: Math.max(0, ...seen.filter((item) => item.status === 503).map((item) => item.ms)),
      upstreamCalls,
      completionsCharged: charged,
      uncharged: upstreamCalls - charged,
      invariantChecks: money.checks,
      violations: money.violations.length,
    });

    // Every answer is a success or a clean, retryable 503: no 500, no dropped connection, no broken stream.
    const unclean = seen.filter((item) => !(item.status === 200 && item.complete !== false && !item.code && !item.failure) && item.status !== 503);
    expect(unclean).toEqual([]);
    const unavailable = seen.filter((item) => item.status === 503);
    expect(unavailable.filter((item) => item.retryAfter !== '5')).toEqual([]);
    expect(
      unavailable.filter((item) => item.path === '/v1' && !(item.code === 'service_unavailable' && item.contentType?.startsWith('application/json'))),
    ).toEqual([]);
    expect(
      unavailable.filter((item) => item.path === '/bff' && !(item.code === 'ServiceUnavailable' && item.contentType?.startsWith('application/problem+json'))),
    ).toEqual([]);
    expect(answered('/v1', 503, downFrom)).toBeGreaterThanOrEqual(20);
    expect(answered('/bff', 503, downFrom)).toBeGreaterThanOrEqual(4);
    expect(health).toEqual([503, 503]);
    // Back without being restarted: the same processes answer again, and shut down cleanly.
    expect(answered('/v1', 200, backFrom)).toBeGreaterThanOrEqual(20);
    expect(answered('/bff', 200, backFrom)).toBeGreaterThanOrEqual(4);
    expect(stillRunning).toEqual(pids.map((pid) => [pid, true]));
    expect(exitCodes).toEqual([0, 0]);
    // The provider answered all four while the database was away: streamed or not, each answer goes
    // out whole (settlement follows the answer), and is charged once the database is back.
    expect(inFlight.map((outcome) => [outcome.status, outcome.complete ?? null, outcome.code ?? null])).toEqual([
      [200, true, null],
      [200, true, null],
      [200, true, null],
      [200, true, null],
    ]);
    expect(recovered).toBe(true);
    expect(money.violations).toEqual([]);
    // Every call the provider had, answered before, during or after the outage, is charged once.
    expect(charged).toBe(upstreamCalls);
  }, 90_000);
});

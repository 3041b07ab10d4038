import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../app.js';
import { chatCompletions, creditBalances, reservations } from '../../db/schema/index.js';
import { nanosToDollars } from '../../domain/money.js';
import type { Viewer } from '../../domain/people/ensure-person.js';
import { getMe } from '../../domain/people/get-me.js';
import { loadApiConfig } from '../../env.js';
import { openAiCompatible } from '../../gateway/providers/openai-compatible.js';
import { startFakeUpstream } from '../../testing/fake-upstream.js';
import { setupGateway } from '../../testing/gateway-fixture.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { listedPrice } from '../../testing/price-list.js';
import { lockRows } from '../../testing/row-lock.js';

let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(async () => upstream?.close());

const provider = () => openAiCompatible({ baseUrl: upstream.baseUrl, timeoutMs: 1500, idleTimeoutMs: 1000 });
const t = setupGateway(provider);
afterEach(async () => {
  await t.settled();
  await expectLedgerConsistent(t.testDb.db);
  expect(await t.testDb.db.select().from(reservations)).toEqual([]);
});

const model = 'gpt-4o-mini';
const messages = [{ role: 'user' as const, content: 'Say hello.' }];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function client(key: string, baseURL = `${t.url}/v1`) {
  return new OpenAI({ baseURL, apiKey: key, maxRetries: 0, defaultHeaders: { origin: 'https://app.example.com' } });
}

type Instance = typeof t.app;

/** The holds open for the organisation once the answers an instance sent are settled: its spare ones. */
async function spareHolds(organizationId: string, app: Instance = t.app) {
  await app.meter.settling();
  return (await t.testDb.db.select().from(reservations).where(eq(reservations.organizationId, organizationId))).length;
}

/** Calls in a row until the instance keeps spare holds for the key (its stock is topped up in the background). */
async function warmUp(key: string, organizationId: string, app: Instance = t.app) {
  const baseURL = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
  for (let call = 0; call < 20 && (await spareHolds(organizationId, app)) === 0; call++) {
    await client(key, baseURL).chat.completions.create({ model, messages, max_tokens: 4 });
  }
  expect(await spareHolds(organizationId, app)).toBeGreaterThan(0);
}

describe("holds an instance reserves ahead of a key's calls", () => {
  // Postgres only: the test locks the balance row on a connection of its own.
  it.skipIf(!process.env.DATABASE_URL)('answers the next calls without waiting for admission: they are answered while the balance row is locked', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    await warmUp(account.value, account.organizationId);
    // The stock was confirmed a moment ago, and stays so while the test locks and calls (it is
    // trusted for stockTrustMs, which a loaded machine could spend on the test's own steps).
    vi.useFakeTimers({ toFake: ['performance'] });
    const unlock = await lockRows(t.testDb.db, sql`select 1 from app.credit_balances where organization_id = ${account.organizationId}::uuid for update`);
    const answered = await Promise.race([
      Promise.all([1, 2, 3].map(() => client(account.value).chat.completions.create({ model, messages, max_tokens: 4 }))).then(() => 'answered'),
      pause(3_000).then(() => 'still waiting'),
    ]);
    vi.useRealTimers();
    unlock();
    expect(answered).toBe('answered');
    await t.settled();
    const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
    expect(rows.every((row) => row.totalCostNanos! > 0n)).toBe(true);
  });

  it('holds more at a time for a busy key: calls that use half its holds within half a second of its last top-up double them', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    await warmUp(account.value, account.organizationId);
    // performance.now() stands still: every call comes within half a second of the last top-up.
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      for (let call = 0; call < 12; call++) await client(account.value).chat.completions.create({ model, messages, max_tokens: 4 });
      await vi.waitFor(async () => expect(await spareHolds(account.organizationId)).toBeGreaterThan(16));
    } finally {
      vi.useRealTimers();
    }
  });

  it("gives its spare holds back a second after the key's last call, and the credit is whole again", async () => {
    // The stock's idle timer is a setTimeout: faked from before the first call, it fires when the test says.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    try {
      const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
      await warmUp(account.value, account.organizationId);
      const held = async () =>
        (await t.testDb.db.select().from(creditBalances).where(eq(creditBalances.organizationId, account.organizationId)))[0]!.reservedNanos;
      expect(await held()).toBeGreaterThan(0n);
      await vi.advanceTimersByTimeAsync(1_500);
      // The idle stock closed; its holds go back in the background, one release away.
      await vi.waitFor(async () => expect(await spareHolds(account.organizationId)).toBe(0), { timeout: 500 });
      expect(await held()).toBe(0n);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reserves none ahead for a caller who calls now and then: only a second call within a second starts them', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const call = () => client(account.value).chat.completions.create({ model, messages, max_tokens: 4 });
    // The calls' spacing is counted on performance.now(): faked, the test spaces them without waiting.
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      for (let message = 0; message < 3; message++) {
        await call();
        expect(await spareHolds(account.organizationId)).toBe(0);
        vi.advanceTimersByTime(5_000);
      }
      await call();
      await call();
      await vi.waitFor(async () => expect(await spareHolds(account.organizationId)).toBeGreaterThan(0));
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps none when the credit left is small: each call is then admitted on its own, exactly', async () => {
    const account = await t.account({ creditDollars: 0.005, budgetDollars: 1 });
    for (let call = 0; call < 5; call++) await client(account.value).chat.completions.create({ model, messages, max_tokens: 4 });
    expect(await spareHolds(account.organizationId)).toBe(0);
  });

  it('never shows its spare holds in the balance people see: right after the calls it is the credit less what they cost', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    await warmUp(account.value, account.organizationId);
    const viewer: Viewer = {
      personId: randomUUID(),
      identityId: 'i',
      email: 'a@example.com',
      organizationId: account.organizationId,
      organizationName: 'Gateway test',
      role: 'owner',
      systemAdmin: false,
    };
    const me = await getMe(t.testDb.db, viewer);
    // The stock is still held: the database's reserved total is more than zero, and none of it shows.
    const [balance] = await t.testDb.db.select().from(creditBalances).where(eq(creditBalances.organizationId, account.organizationId));
    expect(balance!.reservedNanos).toBeGreaterThan(0n);
    const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
    const charged = rows.reduce((sum, row) => sum + row.totalCostNanos!, 0n);
    expect(me.remainingSpendAmount).toBe(nanosToDollars(1_000_000_000n - charged));
  });

  it('admits a call larger than its holds on its own, with the max_tokens it asked for', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    await warmUp(account.value, account.organizationId);
    const sentBefore = upstream.requests.length;
    await client(account.value).chat.completions.create({ model, messages, max_tokens: 3_000 });
    expect(upstream.requests.slice(sentBefore).map((request) => request.max_tokens)).toEqual([3_000]);
  });

  it('gives them back before it caps a call that names no max_tokens: the cap is all the credit left', async () => {
    const account = await t.account({ creditDollars: 0.2, budgetDollars: 1 });
    await warmUp(account.value, account.organizationId);
    const [before] = await t.testDb.db.select().from(creditBalances).where(eq(creditBalances.organizationId, account.organizationId));
    const sentBefore = upstream.requests.length;
    // gpt-4.1's listed output price ($8 per 1M tokens) makes the credit left pay fewer tokens than the model's 32,768.
    const completion = await client(account.value).chat.completions.create({ model: 'gpt-4.1', messages });
    await t.settled();
    const [row] = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.id, completion.id));
    const outputPrice = listedPrice('gpt-4.1').outputNanosPerToken;
    expect(upstream.requests.slice(sentBefore).map((request) => request.max_tokens)).toEqual([
      Number((before!.balanceNanos - row!.estimatedInputCostNanos!) / outputPrice),
    ]);
  });

  it('gives its spare holds back when it shuts down', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const app = await createApp({ config: loadApiConfig({ LOG_LEVEL: 'silent' }), db: t.testDb.handle, models: provider() });
    await app.listen({ host: '127.0.0.1', port: 0 });
    await warmUp(account.value, account.organizationId, app);
    await app.close();
    expect(await t.testDb.db.select().from(reservations).where(eq(reservations.organizationId, account.organizationId))).toEqual([]);
  });
});

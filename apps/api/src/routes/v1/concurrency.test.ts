import type { AddressInfo } from 'node:net';
import { createDb } from '@meterway/db';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../app.js';
import { schema } from '../../db/index.js';
import { chatCompletions, callerSpend, creditBalances, keySpend, reservations } from '../../db/schema/index.js';
import { loadApiConfig } from '../../env.js';
import { openAiCompatible } from '../../gateway/providers/openai-compatible.js';
import { startFakeUpstream } from '../../testing/fake-upstream.js';
import { atRest, setupGateway } from '../../testing/gateway-fixture.js';
import { startIdentityProvider } from '../../testing/identity-provider.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';

let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
let identity: Awaited<ReturnType<typeof startIdentityProvider>>;
const provider = () => openAiCompatible({ baseUrl: upstream.baseUrl, timeoutMs: 10_000, idleTimeoutMs: 5_000 });
beforeAll(async () => {
  [upstream, identity] = await Promise.all([startFakeUpstream(), startIdentityProvider()]);
});
const t = setupGateway(provider);

// On Postgres (CI) a second api instance shares the database, as two production instances would.
let second: { app: FastifyInstance; url: string; settled: () => Promise<void>; close: () => Promise<void> } | undefined;
beforeAll(async () => {
  const databaseUrl = t.testDb.handle.databaseUrl;
  if (!databaseUrl) return;
  const db = await createDb({ schema, databaseUrl, dataDir: '', service: 'api' });
  const app = await createApp({ config: loadApiConfig({ LOG_LEVEL: 'silent' }), db, models: provider() });
  await app.listen({ host: '127.0.0.1', port: 0 });
  second = {
    app,
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    settled: () => atRest(app),
    close: async () => (await app.close(), await db.close()),
  };
});
afterAll(async () => {
  await second?.close();
  await Promise.all([upstream?.close(), identity?.close()]);
});

const messages = [{ role: 'user', content: 'Count to eight.' }];
// gpt-4o-mini worst case per call: the estimate of the input × 150 n$ + 8 × 600 n$ (≈ 7,000 n$).
const worstCase = 7_000;

async function fire(key: string, calls: number, dispatcher?: Agent, headers: Record<string, string> = {}) {
  const urls = [t.url, second?.url ?? t.url];
  return Promise.all(
    Array.from({ length: calls }, (_, i) =>
      undiciFetch(`${urls[i % urls.length]}/v1/chat/completions`, {
        ...(dispatcher ? { dispatcher } : {}),
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, origin: 'https://app.example.com', 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages, max_tokens: 8 }),
      }).then((response) => response.status),
    ),
  );
}

/** Once both instances have settled the answers they sent (settlement follows the answer). */
async function totals(organizationId: string, keyId: string) {
  await Promise.all([t.settled(), second?.settled()]);
  const [charged] = await t.testDb.db
    .select({ total: sql<string>`coalesce(sum(${chatCompletions.totalCostNanos}), 0)::text`, count: sql<number>`count(*)::int` })
    .from(chatCompletions)
    .where(eq(chatCompletions.organizationId, organizationId));
  const [credit] = await t.testDb.db.select().from(creditBalances).where(eq(creditBalances.organizationId, organizationId));
  const [spend] = await t.testDb.db.select().from(keySpend).where(eq(keySpend.publishableKeyId, keyId));
  return {
    charged: BigInt(charged?.total ?? 0),
    calls: charged?.count ?? 0,
    balance: credit?.balanceNanos ?? 0n,
    reserved: credit?.reservedNanos ?? 0n,
    spent: spend?.spentNanos ?? 0n,
  };
}

describe('one client whose calls alternate between the instances', () => {
  it('is never refused for the hold of its own previous call, whose settlement follows the answer', async () => {
    // 100,000 n$: each call names no max_tokens, so it holds all the credit until it is settled.
    const account = await t.account({ creditDollars: 0.0001, budgetDollars: 10 });
    const urls = [t.url, second?.url ?? t.url];
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const response = await fetch(`${urls[i % urls.length]}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.value}`, origin: 'https://app.example.com', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages }),
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toEqual(Array.from({ length: 12 }, () => 200));
    const after = await totals(account.organizationId, account.keyId);
    expect(after.calls).toBe(12);
    expect(after.balance).toBe(100_000n - after.charged);
  });
});

describe(`200 parallel calls${process.env.DATABASE_URL ? ' on two api instances sharing one Postgres' : ''}`, () => {
  it('never spend more than the key budget: every call is charged once or refused with 429', async () => {
    const account = await t.account({ creditDollars: 10, budgetDollars: (20 * worstCase) / 1e9 });
    const statuses = await fire(account.value, 200);
    const after = await totals(account.organizationId, account.keyId);
    const ok = statuses.filter((status) => status === 200).length;
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    expect(ok).toBeGreaterThanOrEqual(15);
    expect(ok).toBe(after.calls);
    expect(after.spent).toBe(after.charged);
    expect(after.spent).toBeLessThanOrEqual(BigInt(20 * worstCase));
    expect(after.balance).toBe(10_000_000_000n - after.charged);
    expect(after.reserved).toBe(0n);
    await expectLedgerConsistent(t.testDb.db);
  });

  it('never drive credit below zero: every call is charged once or refused with 402', async () => {
    const credit = 20 * worstCase;
    const account = await t.account({ creditDollars: credit / 1e9, budgetDollars: 10 });
    const statuses = await fire(account.value, 200);
    const after = await totals(account.organizationId, account.keyId);
    const ok = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status !== 200 && status !== 402)).toEqual([]);
    expect(ok).toBeGreaterThanOrEqual(15);
    expect(ok).toBe(after.calls);
    expect(after.balance).toBe(BigInt(credit) - after.charged);
    expect(after.balance >= 0n).toBe(true);
    expect(await t.testDb.db.select().from(reservations)).toEqual([]);
    await expectLedgerConsistent(t.testDb.db);
  });

  it("never spend more than one client address's daily allowance: every call is charged once or refused with 429, and other addresses go on", async () => {
    const allowance = 20 * worstCase;
    const account = await t.account({ creditDollars: 10, budgetDollars: 10, controls: { clientSpendPerDayNanos: BigInt(allowance) } });
    const statuses = await fire(account.value, 200);
    const after = await totals(account.organizationId, account.keyId);
    const ok = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(ok).toBeGreaterThanOrEqual(15);
    expect(ok).toBe(after.calls);
    const [spent] = await t.testDb.db.select().from(callerSpend).where(eq(callerSpend.publishableKeyId, account.keyId));
    expect(spent).toMatchObject({ allowance: expect.stringMatching(/ address 127\.0\.0\.1$/), spentNanos: after.charged, reservedNanos: 0n });
    expect(after.charged).toBeLessThanOrEqual(BigInt(allowance));
    expect(after.reserved).toBe(0n);

    const elsewhere = new Agent({ localAddress: '127.0.0.2' });
    expect(await fire(account.value, 4, elsewhere)).toEqual([200, 200, 200, 200]);
    await elsewhere.close();
    await expectLedgerConsistent(t.testDb.db);
  });

  it("never spend more than one end user's daily allowance, from a token its sign-in provider issued; other end users go on", async () => {
    const allowance = 20 * worstCase;
    const account = await t.account({
      creditDollars: 10,
      budgetDollars: 10,
      controls: { endUserTokens: identity.settings, endUserSpendPerDayNanos: BigInt(allowance) },
    });
    const statuses = await fire(account.value, 200, undefined, { 'meterway-user-token': await identity.token('alice') });
    const after = await totals(account.organizationId, account.keyId);
    const ok = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(ok).toBeGreaterThanOrEqual(15);
    expect(ok).toBe(after.calls);
    const [spent] = await t.testDb.db.select().from(callerSpend).where(eq(callerSpend.publishableKeyId, account.keyId));
    expect(spent).toMatchObject({ allowance: expect.stringMatching(/ end-user alice$/), spentNanos: after.charged, reservedNanos: 0n });
    expect(after.charged).toBeLessThanOrEqual(BigInt(allowance));
    expect(after.reserved).toBe(0n);

    expect(await fire(account.value, 4, undefined, { 'meterway-user-token': await identity.token('bob') })).toEqual([200, 200, 200, 200]);
    await expectLedgerConsistent(t.testDb.db);
  });
});

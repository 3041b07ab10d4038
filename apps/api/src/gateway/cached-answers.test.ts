import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletions, creditBalances, publishableKeys, responseCache } from '../db/schema/index.js';
import { takeBack } from '../domain/credit/ledger.js';
import { deleteExpiredAnswers, findCachedAnswer } from '../domain/metering/response-cache.js';
import { startBillingUpstream } from '../testing/billing-upstream.js';
import { setupGateway } from '../testing/gateway-fixture.js';
import { expectLedgerConsistent } from '../testing/ledger-invariant.js';
import { priceList } from '../testing/price-list.js';
import { openAiCompatible } from './providers/openai-compatible.js';

// Issue #24: a key may answer an identical non-streamed request from its response cache, charged
// nothing and marked as a hit; never another organisation's answer.
let upstream: Awaited<ReturnType<typeof startBillingUpstream>>;
beforeAll(async () => {
  upstream = await startBillingUpstream(priceList);
});
afterAll(async () => upstream?.close());

// Behind a proxy on this machine, so a test can call as visitors at other addresses (X-Forwarded-For).
const t = setupGateway(() => openAiCompatible({ name: 'openai', baseUrl: upstream.baseUrl, timeoutMs: 2000, idleTimeoutMs: 2000 }), {
  TRUST_PROXY: '127.0.0.1',
});
afterEach(async () => {
  await t.settled();
  await expectLedgerConsistent(t.testDb.db);
});

type Account = Awaited<ReturnType<typeof t.account>>;
const cachingAccount = () => t.account({ creditDollars: 1, budgetDollars: 1, controls: { responseCacheSeconds: 600 } });
const client = (account: Account, visitor?: string) =>
  new OpenAI({
    baseURL: `${t.url}/v1`,
    apiKey: account.value,
    maxRetries: 0,
    defaultHeaders: { origin: 'https://app.example.com', ...(visitor ? { 'x-forwarded-for': visitor } : {}) },
  });
const question: ChatCompletionCreateParamsNonStreaming = {
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'What is a prepaid meter?' }],
  max_tokens: 7,
};
const ask = (account: Account, body = question, visitor?: string) =>
  client(account, visitor).chat.completions.create(body) as Promise<OpenAI.ChatCompletion & { x_meterway?: { cacheHit: boolean } }>;

async function rowsOf(account: Account) {
  await t.settled();
  return t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId)).orderBy(chatCompletions.createdAt);
}
const balanceOf = async (account: Account) =>
  (await t.testDb.db.select().from(creditBalances).where(eq(creditBalances.organizationId, account.organizationId)))[0]?.balanceNanos;

describe("a key's response cache", () => {
  it('answers the same request again from the cache: no provider, charged nothing, its row and its answer saying it was a hit', async () => {
    const account = await cachingAccount();
    const requests = upstream.requests.length;
    const first = await ask(account);
    expect(first.x_meterway).toEqual({ cacheHit: false });
    const [paid] = await rowsOf(account);
    const balance = await balanceOf(account);

    // The same request with its fields in another order is the same request.
    const again = await ask(account, { max_tokens: 7, messages: question.messages, model: 'gpt-4o-mini' });
    expect(upstream.requests.length - requests).toBe(1);
    expect(again.x_meterway).toEqual({ cacheHit: true });
    // The provider's answer as it wrote it, its fields in their order, under a new id.
    expect(again).toEqual({ ...first, id: again.id, x_meterway: { cacheHit: true } });
    expect(JSON.stringify({ ...again, id: first.id })).toBe(JSON.stringify({ ...first, x_meterway: { cacheHit: true } }));
    expect(again.id).not.toBe(first.id);

    const rows = await rowsOf(account);
    expect(rows.map((row) => [row.id, row.cacheHit, row.totalCostNanos])).toEqual([
      [first.id, false, paid!.totalCostNanos],
      [again.id, true, 0n],
    ]);
    expect(rows[1]).toMatchObject({
      inputTokens: paid!.inputTokens,
      outputTokens: paid!.outputTokens,
      provider: 'openai',
      inputCostNanos: 0n,
      outputCostNanos: 0n,
    });
    expect(await balanceOf(account)).toBe(balance);

    // A different request is not the same answer.
    await ask(account, { ...question, max_tokens: 6 });
    expect(upstream.requests.length - requests).toBe(2);
  });

  it("never answers another organisation's request from it, nor a key that keeps no cache, nor a stream", async () => {
    const ours = await cachingAccount();
    const theirs = await cachingAccount();
    const uncached = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const billed = upstream.billedNanos();
    await ask(ours);
    const theirAnswer = await ask(theirs);
    expect(theirAnswer.x_meterway).toEqual({ cacheHit: false });
    await ask(uncached);
    const plain = await ask(uncached);
    expect(plain).not.toHaveProperty('x_meterway');
    for await (const chunk of await client(ours).chat.completions.create({ ...question, stream: true })) void chunk;

    const rows = [...(await rowsOf(ours)), ...(await rowsOf(theirs)), ...(await rowsOf(uncached))];
    expect(rows.map((row) => row.cacheHit)).toEqual([false, false, false, false, false]);
    const charged = rows.reduce((sum, row) => sum + row.totalCostNanos!, 0n);
    expect(charged).toBeGreaterThanOrEqual(upstream.billedNanos() - billed);
  });

  it('never answers one end user what another asked: each visitor of a key has answers of their own', async () => {
    const account = await cachingAccount();
    const requests = upstream.requests.length;
    const first = await ask(account, question, '203.0.113.1');
    const other = await ask(account, question, '203.0.113.2');
    expect(other.x_meterway).toEqual({ cacheHit: false });
    expect(other.id).not.toBe(first.id);
    expect(upstream.requests.length - requests).toBe(2);

    expect((await ask(account, question, '203.0.113.1')).x_meterway).toEqual({ cacheHit: true });
    expect((await ask(account, question, '203.0.113.2')).x_meterway).toEqual({ cacheHit: true });
    expect(upstream.requests.length - requests).toBe(2);
  });

  it('shares answers across end users only when the key says so, and stops at once when it no longer does', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1, controls: { responseCacheSeconds: 600, responseCacheShared: true } });
    const requests = upstream.requests.length;
    const first = await ask(account, question, '203.0.113.1');
    const other = await ask(account, question, '203.0.113.2');
    expect(other.x_meterway).toEqual({ cacheHit: true });
    expect(other.choices).toEqual(first.choices);
    expect(upstream.requests.length - requests).toBe(1);

    await t.testDb.db.update(publishableKeys).set({ responseCacheShared: false, version: 1 }).where(eq(publishableKeys.id, account.keyId));
    expect((await ask(account, question, '203.0.113.3')).x_meterway).toEqual({ cacheHit: false });
    expect(upstream.requests.length - requests).toBe(2);
  });

  it('answers a key whose monthly budget is spent nothing from the cache: it is refused as a paid call would be', async () => {
    const account = await cachingAccount();
    await ask(account);
    expect((await ask(account)).x_meterway).toEqual({ cacheHit: true });
    const [paid] = await rowsOf(account);

    // The owner lowers the budget to what the key has spent this month.
    await t.testDb.db
      .update(publishableKeys)
      .set({ spendLimitNanos: paid!.totalCostNanos ?? 0n, version: 1 })
      .where(eq(publishableKeys.id, account.keyId));
    await expect(ask(account)).rejects.toMatchObject({ status: 429 });
    expect((await rowsOf(account)).map((row) => row.cacheHit)).toEqual([false, true]);
  });

  it('answers an organisation that owes nothing from the cache: it is refused as a paid call would be', async () => {
    const account = await cachingAccount();
    await ask(account);
    expect((await ask(account)).x_meterway).toEqual({ cacheHit: true });

    // A refund takes back more than is left: the balance is empty and the rest is owed.
    await t.testDb.db.transaction((tx) =>
      takeBack(tx, { organizationId: account.organizationId, kind: 'refund', amountNanos: 2_000_000_000n, reference: 'refund-1', reason: 'a refund' }),
    );
    await expect(ask(account)).rejects.toMatchObject({ status: 402 });
    expect((await rowsOf(account)).map((row) => row.cacheHit)).toEqual([false, true]);
  });

  it('stops answering from the cache once the key turns it off, or is deleted, even before this instance read the key again', async () => {
    const [turnedOff, deleted] = [await cachingAccount(), await cachingAccount()];
    for (const account of [turnedOff, deleted]) {
      await ask(account);
      expect((await ask(account)).x_meterway).toEqual({ cacheHit: true });
    }

    await t.testDb.db.update(publishableKeys).set({ responseCacheSeconds: null, version: 1 }).where(eq(publishableKeys.id, turnedOff.keyId));
    expect((await ask(turnedOff)).x_meterway?.cacheHit).not.toBe(true);
    await t.testDb.db.update(publishableKeys).set({ deletedAt: new Date(), version: 1 }).where(eq(publishableKeys.id, deleted.keyId));
    await expect(ask(deleted)).rejects.toMatchObject({ status: 401 });

    expect((await rowsOf(turnedOff)).map((row) => row.cacheHit)).toEqual([false, true, false]);
    expect((await rowsOf(deleted)).map((row) => row.cacheHit)).toEqual([false, true]);
  });

  it('does not serve an answer longer than the output limit the key was given since: the call is made again within it', async () => {
    const account = await cachingAccount();
    await ask(account);
    const [kept] = await rowsOf(account);
    expect(kept!.outputTokens).toBeGreaterThan(3);

    await t.testDb.db.update(publishableKeys).set({ maxOutputTokensPerCall: 3, version: 1 }).where(eq(publishableKeys.id, account.keyId));
    const again = await ask(account);
    expect(again.x_meterway).toEqual({ cacheHit: false });
    const rows = await rowsOf(account);
    expect(rows.map((row) => row.cacheHit)).toEqual([false, false]);
    expect(rows[1]!.outputTokens).toBeLessThanOrEqual(3);
  });

  it('forgets an answer when its time is up, and the sweep deletes it', async () => {
    const account = await cachingAccount();
    await ask(account);
    const [entry] = await t.testDb.db.select().from(responseCache).where(eq(responseCache.organizationId, account.organizationId));
    const key = { organizationId: account.organizationId, publishableKeyId: account.keyId };
    const expiry = entry!.expiresAt.getTime();
    expect(expiry - Date.now()).toBeGreaterThan(590_000);
    expect(await findCachedAnswer(t.testDb.db, key, entry!.requestHash, new Date(expiry - 1))).toBeDefined();
    expect(await findCachedAnswer(t.testDb.db, key, entry!.requestHash, new Date(expiry))).toBeUndefined();

    const entries = () => t.testDb.db.select().from(responseCache).where(eq(responseCache.organizationId, account.organizationId));
    await deleteExpiredAnswers(t.testDb.db, new Date(expiry - 1));
    expect(await entries()).toHaveLength(1);
    expect(await deleteExpiredAnswers(t.testDb.db, new Date(expiry))).toBeGreaterThanOrEqual(1);
    expect(await entries()).toEqual([]);
  });
});

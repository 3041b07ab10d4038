import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { chatCompletions, callerSpend, publishableKeys } from '../../db/schema/index.js';
import { addBlock, removeBlock } from '../../domain/keys/key-blocks.js';
import { stockTrustMs } from '../../domain/metering/hold-stock.js';
import { systemActor } from '../../domain/audit/record-audit.js';
import { openAiCompatible } from '../../gateway/providers/openai-compatible.js';
import { startFakeUpstream } from '../../testing/fake-upstream.js';
import { setupGateway } from '../../testing/gateway-fixture.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';

// A copied key called from scripts: every client forges the allowed Origin, as a script can.
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(async () => upstream?.close());

const t = setupGateway(() => openAiCompatible({ baseUrl: upstream.baseUrl, timeoutMs: 1500, idleTimeoutMs: 1000 }));
afterEach(async () => {
  vi.useRealTimers();
  await t.settled();
  await expectLedgerConsistent(t.testDb.db);
});

const messages = [{ role: 'user' as const, content: 'Say hello.' }];
const agents: Agent[] = [];
afterAll(async () => Promise.all(agents.map((agent) => agent.close())));

/** The official SDK on sockets bound to one loopback address (127.0.0.2, 127.0.0.3, …): one client address each. */
function clientFrom(localAddress: string, key: string) {
  const agent = new Agent({ localAddress });
  agents.push(agent);
  return new OpenAI({
    baseURL: `${t.url}/v1`,
    apiKey: key,
    maxRetries: 0,
    defaultHeaders: { origin: 'https://app.example.com' },
    fetch: (url, init) => undiciFetch(url as string, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>,
  });
}

const statusOf = async (call: Promise<unknown>) =>
  call.then(
    () => 200,
    (error: unknown) => (error instanceof OpenAI.APIError ? error : Promise.reject(error)),
  );

describe('per-key controls on the gateway', () => {
  it('refuses a model the key does not allow with 403 naming it, and /v1/models lists only the allowed ones', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1, controls: { allowedModels: ['meterway-demo', 'gpt-4o-mini'] } });
    const client = clientFrom('127.0.0.2', account.value);

    const refused = await statusOf(client.chat.completions.create({ model: 'gpt-4o', messages, max_tokens: 4 }));
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refused).toMatchObject({ status: 403, code: 'model_not_allowed', param: 'model', message: "403 The model 'gpt-4o' is not allowed for this key." });
    expect(upstream.requests.some((body) => body.model === 'gpt-4o')).toBe(false);

    expect(await statusOf(client.chat.completions.create({ model: 'gpt-4o-mini', messages, max_tokens: 4 }))).toBe(200);
    const listed = await client.models.list();
    expect(listed.data.map((model) => model.id).sort()).toEqual(['gpt-4o-mini', 'meterway-demo']);
  });

  it('follows an edit made elsewhere: a model allowed since is admitted, one removed since is refused', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1, controls: { allowedModels: ['gpt-4o-mini'] } });
    const client = clientFrom('127.0.0.2', account.value);
    expect(await statusOf(client.chat.completions.create({ model: 'gpt-4o-mini', messages, max_tokens: 4 }))).toBe(200);

    // Another instance's edit: this instance's copy of the key is now out of date.
    await t.testDb.db
      .update(publishableKeys)
      .set({ allowedModels: ['gpt-4o'], version: 1 })
      .where(eq(publishableKeys.id, account.keyId));
    expect(await statusOf(client.chat.completions.create({ model: 'gpt-4o', messages, max_tokens: 4 }))).toBe(200);
    expect(await statusOf(client.chat.completions.create({ model: 'gpt-4o-mini', messages, max_tokens: 4 }))).toMatchObject({ status: 403 });
  });

  it("holds and forwards at most the key's output limit per call, whatever the call asks for", async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1, controls: { maxOutputTokensPerCall: 6 } });
    const client = clientFrom('127.0.0.2', account.value);
    const asked = [{ max_tokens: 500 }, { max_completion_tokens: 500 }, {}, { max_tokens: 3 }];
    for (const limit of asked) {
      const before = upstream.requests.length;
      await client.chat.completions.create({ model: 'gpt-4o-mini', messages, ...limit });
      const forwarded = upstream.requests[before]!;
      expect(Math.max(forwarded.max_tokens ?? 0, forwarded.max_completion_tokens ?? 0)).toBe('max_tokens' in limit && limit.max_tokens === 3 ? 3 : 6);
    }
    await t.settled();
    const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.publishableKeyId, account.keyId));
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row.outputTokens).toBeLessThanOrEqual(6);
  });

  it('caps the requests per minute of each client address: a forged Origin from one address gets 429 with Retry-After, others keep working', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1, controls: { clientRequestsPerMinute: 3 } });
    const attacker = clientFrom('127.0.0.2', account.value);
    const visitor = clientFrom('127.0.0.3', account.value);

    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await statusOf(attacker.chat.completions.create({ model: 'meterway-demo', messages, max_tokens: 4 })));
    expect(outcomes.slice(0, 3)).toEqual([200, 200, 200]);
    for (const refused of outcomes.slice(3)) {
      expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
      expect(refused).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
      const error = refused as InstanceType<typeof OpenAI.RateLimitError>;
      expect(error.message).toMatch(/^429 Too many requests from your address for this key\. Retry in \d+ seconds\.$/);
      expect(Number(error.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    for (let i = 0; i < 3; i++) expect(await statusOf(visitor.chat.completions.create({ model: 'meterway-demo', messages, max_tokens: 4 }))).toBe(200);
    // The refused calls reached no provider and were charged nothing.
    await t.settled();
    expect(await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.publishableKeyId, account.keyId))).toHaveLength(6);
  });

  it("refuses a client address once it has used the key's daily allowance, until midnight UTC, while other addresses keep working", async () => {
    // meterway-demo: 500 n$ per input token, 1,500 per output token; each call holds about 20,000 n$.
    const allowance = 60_000n;
    const account = await t.account({ creditDollars: 1, budgetDollars: 1, controls: { clientSpendPerDayNanos: allowance } });
    const attacker = clientFrom('127.0.0.2', account.value);
    const outcomes = [];
    for (let i = 0; i < 8; i++) outcomes.push(await statusOf(attacker.chat.completions.create({ model: 'meterway-demo', messages, max_tokens: 8 })));
    const refused = outcomes.filter((outcome) => outcome !== 200);
    expect(outcomes.filter((outcome) => outcome === 200).length).toBeGreaterThanOrEqual(2);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const error of refused) {
      expect(error).toMatchObject({
        status: 429,
        code: 'client_allowance_exceeded',
        message: "429 Your address has used this key's daily allowance. It resets at midnight UTC.",
      });
      const retryAfter = Number((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
    }
    expect(await statusOf(clientFrom('127.0.0.3', account.value).chat.completions.create({ model: 'meterway-demo', messages, max_tokens: 8 }))).toBe(200);

    await t.settled();
    const allowances = await t.testDb.db.select().from(callerSpend).where(eq(callerSpend.publishableKeyId, account.keyId));
    const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.publishableKeyId, account.keyId));
    const spentBy = (client: string) => allowances.find((row) => row.allowance.endsWith(` address ${client}`));
    expect(spentBy('127.0.0.2')).toMatchObject({ reservedNanos: 0n });
    expect(spentBy('127.0.0.2')!.spentNanos).toBeLessThanOrEqual(allowance);
    expect(spentBy('127.0.0.2')!.spentNanos + spentBy('127.0.0.3')!.spentNanos).toBe(rows.reduce((sum, row) => sum + row.totalCostNanos!, 0n));
  });

  it('refuses a blocked address with 403 once the block is made on another instance, and lets it in again once lifted', async () => {
    // The stock's trust is counted on performance.now(): faked, the test moves it past stockTrustMs instead of waiting.
    vi.useFakeTimers({ toFake: ['performance'] });
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const viewer = { organizationId: account.organizationId, ...systemActor };
    const attacker = clientFrom('127.0.0.2', account.value);
    const visitor = clientFrom('127.0.0.3', account.value);
    const call = (client: OpenAI) => statusOf(client.chat.completions.create({ model: 'meterway-demo', messages, max_tokens: 4 }));
    for (let i = 0; i < 3; i++) expect(await call(attacker)).toBe(200);

    // As another instance's console request would: straight to the database, this instance's copy of the key untouched.
    const block = await addBlock(t.testDb.db, viewer, account.keyId, { client: '127.0.0.2' }, new Date());
    vi.advanceTimersByTime(stockTrustMs + 20);
    const before = upstream.requests.length;
    const refused = await call(attacker);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refused).toMatchObject({ status: 403, code: 'client_blocked', message: "403 The key's owner has blocked calls from your address." });
    expect(upstream.requests.length).toBe(before);
    expect(await call(visitor)).toBe(200);
    expect(await statusOf(attacker.models.list())).toMatchObject({ status: 403 });

    await removeBlock(t.testDb.db, viewer, account.keyId, block.id, new Date());
    expect(await call(attacker)).toBe(200);
  });

  it('refuses an address that sent 60 unknown keys in a minute any other unknown one (429), while its known key and other addresses go on', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const scripted = clientAgent('127.0.0.4');
    const forged = (i: number) => `pk_live_${String(i).padStart(32, 'Z')}`;
    const call = async (key: string, dispatcher?: Agent) => {
      const response = await undiciFetch(`${t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', origin: 'https://app.example.com' },
        body: JSON.stringify({ model: 'meterway-demo', messages, max_tokens: 4 }),
        ...(dispatcher ? { dispatcher } : {}),
      });
      const body = (await response.json()) as { error?: { code: string; message: string } };
      return { status: response.status, retryAfter: response.headers.get('retry-after'), ...body.error };
    };
    expect(await call(account.value, scripted)).toMatchObject({ status: 200 });

    for (let i = 0; i < 60; i++) expect(await call(forged(i), scripted)).toMatchObject({ status: 401, code: 'invalid_api_key' });
    const refused = await call(forged(60), scripted);
    expect(refused).toMatchObject({
      status: 429,
      code: 'rate_limit_exceeded',
      message: expect.stringMatching(/^Too many requests with unknown API keys from your address\. Retry in \d+ seconds\.$/),
    });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    // Its own key, which this instance knows, still works from there; another address is not held to its count.
    expect(await call(account.value, scripted)).toMatchObject({ status: 200 });
    expect(await call(forged(61), clientAgent('127.0.0.5'))).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });
});

function clientAgent(localAddress: string) {
  const agent = new Agent({ localAddress });
  agents.push(agent);
  return agent;
}

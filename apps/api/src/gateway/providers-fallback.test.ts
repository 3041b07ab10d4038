import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleValue } from '@meterway/service/read-metrics';
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletions } from '../db/schema/index.js';
import { startBillingUpstream } from '../testing/billing-upstream.js';
import { setupGateway } from '../testing/gateway-fixture.js';
import { expectLedgerConsistent } from '../testing/ledger-invariant.js';
import { priceList } from '../testing/price-list.js';

// Issue #24: a model routed to two providers that bill as real ones do. The next takes a call over
// when the first fails before it could bill it, never once it may have or once an answer began,
// and a provider that keeps failing is skipped. What the account is charged never falls below what
// the providers billed.
let first: Awaited<ReturnType<typeof startBillingUpstream>>;
let second: Awaited<ReturnType<typeof startBillingUpstream>>;
const dir = mkdtempSync(join(tmpdir(), 'meterway-fallback-'));
const providersFile = join(dir, 'providers.json');
const failuresToOpen = 3;

beforeAll(async () => {
  [first, second] = await Promise.all([startBillingUpstream(priceList), startBillingUpstream(priceList)]);
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: [
        { id: 'first', baseUrl: first.baseUrl, timeoutMs: 1000 },
        { id: 'second', baseUrl: second.baseUrl },
        // Nothing listens on port 9 (discard): the connection is refused.
        { id: 'gone', baseUrl: 'http://127.0.0.1:9/v1' },
      ],
      routes: { 'gpt-4o-mini': ['first', 'second'], 'gpt-4o': ['gone', 'second'] },
      circuitBreaker: { failuresToOpen, openSeconds: 3600 },
    }),
  );
});
afterAll(async () => {
  await Promise.all([first?.close(), second?.close()]);
});

const t = setupGateway(undefined, { PROVIDERS_FILE: providersFile, UPSTREAM_IDLE_TIMEOUT_MS: '1000' });

type Account = Awaited<ReturnType<typeof t.account>>;

afterEach(async () => {
  first.setMode('greedy');
  second.setMode('greedy');
  // A call the first provider serves ends its run of failures, so each test starts with its circuit closed.
  await client(await t.account({ creditDollars: 1, budgetDollars: 1 })).chat.completions.create(request('gpt-4o-mini'));
  await t.settled();
  await expectLedgerConsistent(t.testDb.db);
});

const client = (account: Account) =>
  new OpenAI({ baseURL: `${t.url}/v1`, apiKey: account.value, maxRetries: 0, defaultHeaders: { origin: 'https://app.example.com' } });
const request = (model: string): ChatCompletionCreateParamsNonStreaming => ({
  model,
  messages: [{ role: 'user', content: 'Name three colours.' }],
  max_tokens: 5,
});

/** What a streamed answer's client reads: its text, or the error event it ended with. */
async function streamed(account: Account, model: string) {
  let text = '';
  try {
    for await (const chunk of await client(account).chat.completions.create({ ...request(model), stream: true })) text += chunk.choices[0]?.delta.content ?? '';
    return { text };
  } catch (error) {
    return { text, error: error as Error };
  }
}

/** The account's rows once settled, and what both providers billed since `since`: the charge must cover the bill. */
async function books(account: Account, since: { first: bigint; second: bigint }) {
  await t.settled();
  const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
  const charged = rows.reduce((sum, row) => sum + row.totalCostNanos!, 0n);
  const billed = { first: first.billedNanos() - since.first, second: second.billedNanos() - since.second };
  expect(charged).toBeGreaterThanOrEqual(billed.first + billed.second);
  return { rows, charged, billed };
}
const billedNow = () => ({ first: first.billedNanos(), second: second.billedNanos() });
const requestsNow = () => ({ first: first.requests.length, second: second.requests.length });
const since = (before: { first: number; second: number }) => ({ first: first.requests.length - before.first, second: second.requests.length - before.second });

describe('fallback to the next provider of a model', () => {
  it.each([
    ['rate-limited', 429],
    ['failing', 500],
  ] as const)(
    'takes a call over when the first answers %s (%i), for JSON and for a stream, and the row names the provider that served it',
    async (mode, _status) => {
      const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
      const [bills, requests] = [billedNow(), requestsNow()];
      first.setMode(mode);

      const answer = await client(account).chat.completions.create(request('gpt-4o-mini'));
      expect(answer.choices[0]?.message.content).toBe(' token'.repeat(5));
      expect(await streamed(account, 'gpt-4o-mini')).toEqual({ text: ' token'.repeat(5) });
      expect(since(requests)).toEqual({ first: 2, second: 2 });

      const { rows, billed } = await books(account, bills);
      expect(billed.first).toBe(0n);
      expect(rows.map((row) => row.provider)).toEqual(['second', 'second']);
      expect(rows.every((row) => !row.usageEstimated)).toBe(true);
    },
  );

  it('takes a call over when the first refuses the connection', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const [bills, requests] = [billedNow(), requestsNow()];
    const answer = await client(account).chat.completions.create(request('gpt-4o'));
    expect(answer.choices[0]?.message.content).toBe(' token'.repeat(5));
    expect(since(requests)).toEqual({ first: 0, second: 1 });
    const { rows } = await books(account, bills);
    expect(rows.map((row) => row.provider)).toEqual(['second']);
  });

  it('does not try another provider after one that had the request and did not answer in time: that one may bill it, and the call is charged what it held', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const [bills, requests] = [billedNow(), requestsNow()];
    first.setMode('hang');

    const failure = await client(account)
      .chat.completions.create(request('gpt-4o-mini'))
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 504, code: 'upstream_timeout' });
    expect(since(requests)).toEqual({ first: 1, second: 0 });

    const { rows, billed, charged } = await books(account, bills);
    expect(billed.first).toBeGreaterThan(0n);
    expect(charged).toBeGreaterThanOrEqual(billed.first);
    expect(rows.map((row) => [row.provider, row.usageEstimated])).toEqual([['first', true]]);
  });

  it('never switches a stream that has begun: the client keeps what came, the stream ends with an error, and the call is charged what it held', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const [bills, requests] = [billedNow(), requestsNow()];
    first.setMode('cut');

    const { text, error } = await streamed(account, 'gpt-4o-mini');
    expect(text).toBe(' token');
    expect(error?.message).toMatch(/model provider/);
    expect(since(requests)).toEqual({ first: 1, second: 0 });

    const { rows } = await books(account, bills);
    expect(rows.map((row) => [row.provider, row.usageEstimated])).toEqual([['first', true]]);
  });
});

describe("a provider's circuit breaker", () => {
  // Last in the file: the circuit it opens stays open for the rest of the app's life.
  it(`opens after ${failuresToOpen} failures in a row: calls then skip the provider, and the attempts are counted`, async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const [bills, requests] = [billedNow(), requestsNow()];
    first.setMode('failing');

    for (let call = 0; call < failuresToOpen + 2; call++) await client(account).chat.completions.create(request('gpt-4o-mini'));
    expect(since(requests)).toEqual({ first: failuresToOpen, second: failuresToOpen + 2 });

    // Healthy again, but skipped until its circuit's open period ends.
    first.setMode('greedy');
    await client(account).chat.completions.create(request('gpt-4o-mini'));
    expect(since(requests)).toEqual({ first: failuresToOpen, second: failuresToOpen + 3 });

    const { rows } = await books(account, bills);
    expect(rows.every((row) => row.provider === 'second')).toBe(true);
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    const attempts = (provider: string, outcome: string) => sampleValue(metrics, 'meterway_api_gateway_provider_attempts_total', { provider, outcome });
    expect(attempts('first', 'failed')).toBeGreaterThanOrEqual(failuresToOpen);
    expect(attempts('first', 'skipped')).toBe(3);
  });
});

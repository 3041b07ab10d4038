import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import OpenAI from 'openai';
import type { ChatCompletionCreateParams, ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletions, creditBalances, keySpend, reservations } from '../../db/schema/index.js';
import { openAiCompatible } from '../../gateway/providers/openai-compatible.js';
import { startBillingUpstream } from '../../testing/billing-upstream.js';
import { setupGateway } from '../../testing/gateway-fixture.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { listedCost, listedPrice, priceList as pricing } from '../../testing/price-list.js';

let upstream: Awaited<ReturnType<typeof startBillingUpstream>>;
beforeAll(async () => {
  upstream = await startBillingUpstream(pricing);
});
afterAll(async () => upstream?.close());

// Short timeouts: a hanging provider is given up on, and a client that takes nothing is cut off, within the test.
const t = setupGateway(() => openAiCompatible({ baseUrl: upstream.baseUrl, timeoutMs: 1500, idleTimeoutMs: 1500 }), { UPSTREAM_IDLE_TIMEOUT_MS: '500' });
afterEach(async () => {
  upstream.setMode('greedy');
  upstream.answerHeld();
  await t.settled();
  await expectLedgerConsistent(t.testDb.db);
  expect(await t.testDb.db.select().from(reservations)).toEqual([]);
});

function client(key: string) {
  return new OpenAI({ baseURL: `${t.url}/v1`, apiKey: key, maxRetries: 0, defaultHeaders: { origin: 'https://app.example.com' } });
}

type Account = Awaited<ReturnType<typeof t.account>>;

/** Sends one request (streamed ones read to the end) and answers what the provider billed for it and what the account was charged. */
async function call(account: Account, body: ChatCompletionCreateParams) {
  const billedBefore = upstream.billedNanos();
  if (body.stream) {
    for await (const chunk of await client(account.value).chat.completions.create(body)) void chunk;
  } else {
    await client(account.value).chat.completions.create(body);
  }
  return { billed: upstream.billedNanos() - billedBefore };
}

/** The account once every answer is settled: its rows, and whether the ledger, the balance and the key spend agree with them. */
async function books(account: Account, creditNanos: bigint) {
  await t.settled();
  const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
  const [balance] = await t.testDb.db.select().from(creditBalances).where(eq(creditBalances.organizationId, account.organizationId));
  const [spend] = await t.testDb.db.select().from(keySpend).where(eq(keySpend.publishableKeyId, account.keyId));
  const total = rows.reduce((sum, row) => sum + row.totalCostNanos!, 0n);
  const unpaid = rows.reduce((sum, row) => sum + row.unpaidNanos, 0n);
  for (const row of rows) expect(row.totalCostNanos).toBe(row.inputCostNanos + row.outputCostNanos);
  expect(balance?.balanceNanos).toBe(creditNanos - (total - unpaid));
  expect(spend?.spentNanos ?? 0n).toBe(total);
  return { rows, total, unpaid };
}

const weatherTool = (properties: number, name = 'get_weather'): ChatCompletionFunctionTool => ({
  type: 'function',
  function: {
    name,
    description: 'Looks up the weather for a city and returns it in the unit asked for, with a short forecast.',
    parameters: {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: properties }, (_, index) => [
          `field_${index}`,
          { type: 'string', description: `The ${index}th detail the forecast may need, in plain words.`, enum: ['a', 'b', 'c'] },
        ]),
      ),
      required: ['field_0'],
    },
  },
});

const image = (detail: 'low' | 'high' | 'auto') => ({ type: 'image_url' as const, image_url: { url: 'https://images.example.com/cat.png', detail } });
const dollar = 1_000_000_000n;

describe('the meter charges at least what the provider bills, for every valid request shape', () => {
  const shapes: [string, ChatCompletionCreateParams][] = [
    ['n: 8 choices', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Name a colour.' }], max_tokens: 20, n: 8 }],
    [
      '30 high-detail images with max_tokens 1',
      {
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'What is in these?' }, ...Array.from({ length: 30 }, () => image('high'))] }],
        max_tokens: 1,
      },
    ],
    [
      'images at low and auto detail',
      { model: 'gpt-4o', messages: [{ role: 'user', content: [image('low'), image('auto'), { type: 'text', text: 'Compare.' }] }], max_tokens: 5 },
    ],
    [
      'a large tool schema',
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Weather?' }], tools: [weatherTool(40), weatherTool(3, 'other')], max_tokens: 4 },
    ],
    [
      'tool calls, a named tool choice, names and a JSON schema',
      {
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'You are terse.', name: 'house_rules' },
          { role: 'user', content: 'Weather in Paris?', name: 'visitor_1' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"field_0":"a"}' } }],
          },
          { role: 'tool', tool_call_id: 'call_abc', content: '{"temperature":21,"sky":"clear"}' },
        ],
        tools: [weatherTool(5)],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { text: { type: 'string' } } } } },
        max_tokens: 6,
      },
    ],
    ['max_completion_tokens only', { model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Count to ten.' }], max_completion_tokens: 12 }],
    [
      'both limits, the larger as max_tokens',
      { model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Count.' }], max_tokens: 500, max_completion_tokens: 7 },
    ],
    ['streamed with n: 3', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'A word.' }], max_tokens: 9, n: 3, stream: true }],
  ];

  it.each(shapes)('%s', async (_name, body) => {
    const account = await t.account({ creditDollars: 5, budgetDollars: 5 });
    const { billed } = await call(account, body);
    const { rows, total, unpaid } = await books(account, 5n * dollar);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ priceVersion: pricing.version, overHoldNanos: 0n, usageEstimated: false });
    expect(billed).toBeGreaterThan(0n);
    expect(total - unpaid).toBeGreaterThanOrEqual(billed);
  });

  it('forwards the reserved limit under every name the client used, and n as asked', async () => {
    const account = await t.account({ creditDollars: 5, budgetDollars: 5 });
    await call(account, { model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 500, max_completion_tokens: 7, n: 2 });
    expect(upstream.requests.at(-1)).toMatchObject({ max_tokens: 7, max_completion_tokens: 7, n: 2 });
    await call(account, { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], max_completion_tokens: 1_000_000 });
    expect(upstream.requests.at(-1)).toMatchObject({ max_completion_tokens: 16_384 });
    expect(upstream.requests.at(-1)).not.toHaveProperty('max_tokens');
  });

  it("caps an absurd limit to the model's own, without failing the calls admitted beside it", async () => {
    const account = await t.account({ creditDollars: 5, budgetDollars: 5 });
    // 10^20 is a whole number past 2^53 (which a check for safe integers would call fractional).
    const limits = [Number.MAX_SAFE_INTEGER, 1e20, 5, 6, 7];
    const answers = await Promise.all(
      limits.map((max_tokens) =>
        client(account.value).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens }),
      ),
    );
    expect(answers).toHaveLength(5);
    expect(
      upstream.requests
        .slice(-5)
        .map((request) => request.max_tokens)
        .sort((a, b) => a - b),
    ).toEqual([5, 6, 7, 16_384, 16_384]);
    await books(account, 5n * dollar);
  });

  it('charges cached input at the cached price, and the row shows it in its input cost', async () => {
    upstream.setMode('cached');
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const { billed } = await call(account, { model: 'gpt-4o', messages: [{ role: 'user', content: 'A long shared prefix. '.repeat(50) }], max_tokens: 3 });
    const { rows, total } = await books(account, dollar);
    const row = rows[0]!;
    expect(row.cachedInputTokens).toBe(Math.floor(row.inputTokens / 2));
    // gpt-4o in the price list: $2.50 input, $1.25 cached input per 1M tokens.
    expect(row.inputCostNanos).toBe(
      listedCost('gpt-4o', { inputTokens: row.inputTokens, cachedInputTokens: row.cachedInputTokens, outputTokens: 0 }).inputNanos,
    );
    expect(total).toBe(billed);
  });

  it('charges a report above the hold from the free credit, flags the row and never hides it', async () => {
    upstream.setMode('over-report');
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const { billed } = await call(account, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5 });
    const { rows, total, unpaid } = await books(account, dollar);
    expect(unpaid).toBe(0n);
    expect(total).toBe(billed);
    // 50 output tokens beyond the limit, at the listed output price each: above the hold by at least that much less the input estimate's slack.
    expect(rows[0]!.overHoldNanos).toBeGreaterThan(0n);
    expect(rows[0]!.overHoldNanos).toBeLessThanOrEqual(50n * listedPrice('gpt-4o-mini').outputNanosPerToken);
  });

  it("records what the credit could not pay of a report above the hold, and never takes another call's hold", async () => {
    upstream.setMode('over-report');
    // Enough for the call's hold (about 5 output tokens and the input) and little more.
    const account = await t.account({ creditDollars: 0.000_01, budgetDollars: 1 });
    const { billed } = await call(account, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5 });
    const { rows, total, unpaid } = await books(account, 10_000n);
    expect(total).toBe(billed);
    expect(unpaid).toBeGreaterThan(0n);
    expect(rows[0]!.unpaidNanos).toBe(total - 10_000n);
    const [balance] = await t.testDb.db.select().from(creditBalances).where(eq(creditBalances.organizationId, account.organizationId));
    expect(balance?.balanceNanos).toBe(0n);
  });
});

/** Polls what has no event to wait on (a settlement that follows a provider's late answer). */
async function until(condition: () => boolean | Promise<boolean>, what: string) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

const rowsOf = (account: Account) => t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));

describe('calls that reached the provider are paid for, however they end', () => {
  it('a client that leaves before a slow answer: the answer is read and its usage charged', async () => {
    upstream.setMode('held');
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const [sent, billedBefore] = [upstream.requests.length, upstream.billedNanos()];
    const abort = new AbortController();
    const pending = client(account.value)
      .chat.completions.create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Take your time.' }], max_tokens: 7, n: 2 },
        { signal: abort.signal },
      )
      .catch((error: unknown) => error);
    await until(() => upstream.requests.length > sent, 'the provider has the request');
    abort.abort();
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    // Only now does the provider answer: after the client has gone.
    upstream.answerHeld();
    await until(async () => (await rowsOf(account)).length === 1, 'the abandoned call is settled');
    const { rows, total } = await books(account, dollar);
    expect(rows[0]).toMatchObject({ usageEstimated: false, outputTokens: 14 });
    expect(total).toBeGreaterThanOrEqual(upstream.billedNanos() - billedBefore);
  });

  it('a provider that has the request and never answers: 504, and the call is charged all that was reserved', async () => {
    upstream.setMode('hang');
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const billedBefore = upstream.billedNanos();
    const error = await client(account.value)
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello?' }], max_tokens: 50, n: 3 })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    const { rows, total } = await books(account, dollar);
    expect(rows[0]).toMatchObject({ usageEstimated: true, outputTokens: 150 });
    expect(total).toBeGreaterThanOrEqual(upstream.billedNanos() - billedBefore);
  });

  it('a client that stops reading a long stream: it is cut off, and the stream is read to its end and charged', async () => {
    const account = await t.account({ creditDollars: 5, budgetDollars: 5 });
    const [ended, billedBefore] = [upstream.streamsEnded(), upstream.billedNanos()];
    // About 11 MB of events: far more than the sockets between hold.
    const stream = await client(account.value).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Write a very long story.' }],
      max_tokens: 16_384,
      n: 4,
      stream: true,
    });
    const reader = stream[Symbol.asyncIterator]();
    await reader.next();
    await until(() => upstream.streamsEnded() > ended, 'the provider sent its whole stream');
    await until(async () => (await rowsOf(account)).length === 1, 'the stream is settled');
    const { rows, total } = await books(account, 5n * dollar);
    expect(rows[0]).toMatchObject({ usageEstimated: false, outputTokens: 4 * 16_384 });
    expect(total).toBeGreaterThanOrEqual(upstream.billedNanos() - billedBefore);
    // The gateway did not queue the rest for it: what it buffered runs out, and the connection was cut.
    const rest = await (async () => {
      for (let events = 0; ; events++) if ((await reader.next()).done) return { events, cut: false };
    })().catch(() => ({ cut: true }));
    expect(rest).toEqual({ cut: true });
  });

  it('a client that leaves a stream after its first event: the stream is read to its end and charged', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const billedBefore = upstream.billedNanos();
    const stream = await client(account.value).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Go.' }],
      max_tokens: 300,
      n: 2,
      stream: true,
    });
    for await (const chunk of stream) {
      void chunk;
      break;
    }
    await until(async () => (await rowsOf(account)).length === 1, 'the stream is settled');
    const { rows, total } = await books(account, dollar);
    expect(rows[0]).toMatchObject({ usageEstimated: false, outputTokens: 600 });
    expect(total).toBeGreaterThanOrEqual(upstream.billedNanos() - billedBefore);
  });
});

describe('requests the price list cannot price are refused before the provider sees them', () => {
  const refusals: [string, Record<string, unknown>, RegExp, string][] = [
    [
      'an audio part',
      { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }] },
      /does not accept 'input_audio'/,
      'messages.[0].content.[0].type',
    ],
    [
      'a file part',
      { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] },
      /does not accept 'file'/,
      'messages.[0].content.[0].type',
    ],
    [
      'an image for a model without image prices',
      { model: 'meterway-demo', messages: [{ role: 'user', content: [image('low')] }] },
      /'meterway-demo' does not accept 'image_url'/,
      'messages.[0].content.[0].type',
    ],
    ['audio output', { modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }, /Audio output is not offered/, 'audio'],
    ['a priority tier', { service_tier: 'priority' }, /service_tier 'priority' is not offered/, 'service_tier'],
    ['predicted outputs', { prediction: { type: 'content', content: 'x' } }, /Predicted outputs are not offered/, 'prediction'],
    ['web search', { web_search_options: {} }, /Web search is not offered/, 'web_search_options'],
    ['an unknown field', { frobnicate: true }, /Unrecognized request argument supplied: frobnicate$/, 'frobnicate'],
    ['n above 128', { n: 129 }, /n must be at most 128/, 'n'],
  ];

  it.each(refusals)('%s', async (_name, fields, message, param) => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const sent = upstream.requests.length;
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5, ...fields };
    const error = await client(account.value)
      .chat.completions.create(body as unknown as ChatCompletionCreateParams)
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ type: 'invalid_request_error', param });
    expect((error as Error).message).toMatch(message);
    expect(upstream.requests.length).toBe(sent);
    const { rows } = await books(account, dollar);
    expect(rows).toEqual([]);
  });
});

describe('random valid request shapes', () => {
  const text = fc.string({ minLength: 0, maxLength: 60 });
  const part = fc.oneof(
    text.map((value) => ({ type: 'text' as const, text: value })),
    fc.constantFrom('low', 'high', 'auto').map((detail) => image(detail as 'low' | 'high' | 'auto')),
  );
  const message = fc.oneof(
    fc.record({ role: fc.constantFrom('system', 'user', 'assistant'), content: text }, { requiredKeys: ['role', 'content'] }),
    fc.record(
      { role: fc.constant('user'), content: fc.array(part, { minLength: 1, maxLength: 4 }), name: fc.stringMatching(/^[a-z_]{1,12}$/) },
      { requiredKeys: ['role', 'content'] },
    ),
  );
  const request = fc.record(
    {
      model: fc.constantFrom('gpt-4o', 'gpt-4o-mini', 'gpt-4.1-mini'),
      messages: fc.array(message, { minLength: 1, maxLength: 4 }),
      n: fc.integer({ min: 1, max: 4 }),
      max_tokens: fc.integer({ min: 1, max: 40 }),
      max_completion_tokens: fc.integer({ min: 1, max: 40 }),
      tools: fc
        .array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 3 })
        .map((sizes) => sizes.map((size, index) => weatherTool(size, `tool_${index}`))),
      stream: fc.boolean(),
    },
    { requiredKeys: ['model', 'messages'] },
  );

  it('are refused before the provider, or charged at least what it billed', async () => {
    // The key caps output at 64 tokens a call (a per-key control): a shape with no limit is held and
    // forwarded at that, not at the model's own maximum of 16,384–32,768, so the stand-in's greedy
    // answers stay short whatever shapes the seed draws (in one CI run, answers of up to 4 choices
    // of that many tokens each took the test past its 30 s).
    const account = await t.account({ creditDollars: 20, budgetDollars: 20, controls: { maxOutputTokensPerCall: 64 } });
    let charged = 0n;
    await fc.assert(
      fc.asyncProperty(request, async (body) => {
        const sent = upstream.requests.length;
        const before = await books(account, 20n * dollar);
        const outcome = await call(account, body as ChatCompletionCreateParams).then(
          (result) => result,
          (error: unknown) => ({ error }),
        );
        const after = await books(account, 20n * dollar);
        if ('error' in outcome) {
          // A refusal (none is expected for these shapes) leaves the provider unasked and nothing charged.
          expect(outcome.error).toBeInstanceOf(OpenAI.APIError);
          expect((outcome.error as InstanceType<typeof OpenAI.APIError>).status).toBeLessThan(500);
          expect(upstream.requests.length).toBe(sent);
          expect(after.total).toBe(before.total);
          return;
        }
        expect(after.total - before.total).toBeGreaterThanOrEqual(outcome.billed);
        charged += after.total - before.total;
      }),
      { numRuns: 40 },
    );
    expect(charged).toBeGreaterThan(0n);
    const { rows } = await books(account, 20n * dollar);
    expect(rows.filter((row) => row.overHoldNanos > 0n)).toEqual([]);
  });
});

import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { chatCompletions, creditBalances, keySpend, reservations } from '../../db/schema/index.js';
import { releaseExpired } from '../../domain/metering/settlement.js';
import { demoModel } from '../../gateway/providers/demo-model.js';
import { countTextTokens } from '../../gateway/tokenize.js';
import { setupGateway } from '../../testing/gateway-fixture.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';

const t = setupGateway(() => demoModel(), { GATEWAY_RATE_LIMIT_PER_MINUTE: '5' });
const client = (key: string) => new OpenAI({ baseURL: `${t.url}/v1`, apiKey: key, maxRetries: 0, defaultHeaders: { origin: 'https://app.example.com' } });
const messages = [{ role: 'user' as const, content: 'Tell me about Meterway.' }];

describe('the offline demo model (the embedded default)', () => {
  it('answers deterministically, streamed or not, with usage, and is metered like any model', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const once = await client(account.value).chat.completions.create({ model: 'meterway-demo', messages });
    const twice = await client(account.value).chat.completions.create({ model: 'meterway-demo', messages });
    expect(once.choices[0]?.message.content).toBe(twice.choices[0]?.message.content);
    expect(once.choices[0]?.message.content).toMatch(/^Meterway demo model here\./);
    expect(once.usage?.completion_tokens).toBeGreaterThan(5);

    const stream = await client(account.value).chat.completions.create({
      model: 'meterway-demo',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(once.choices[0]?.message.content);
    expect(usage?.completion_tokens).toBe(once.usage?.completion_tokens);

    await t.settled();
    const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => !row.usageEstimated && (row.totalCostNanos ?? 0n) > 0n)).toBe(true);
    await expectLedgerConsistent(t.testDb.db);
  });

  it('follows max_tokens', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const short = await client(account.value).chat.completions.create({ model: 'meterway-demo', messages, max_tokens: 3 });
    expect(short.usage?.completion_tokens).toBeLessThanOrEqual(3);
    // A long question gets an answer of max_tokens, which the usage counts as the answer's text counts.
    const long = await client(account.value).chat.completions.create({
      model: 'meterway-demo',
      messages: [{ role: 'user', content: 'Tell me more. '.repeat(3000) }],
      max_tokens: 4096,
    });
    expect(long.usage?.completion_tokens).toBe(4096);
    expect(countTextTokens(long.choices[0]!.message.content!)).toBe(4096);
  });

  it('answers n choices, streamed or not, and bills every one', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const one = await client(account.value).chat.completions.create({ model: 'meterway-demo', messages, max_tokens: 6 });
    const three = await client(account.value).chat.completions.create({ model: 'meterway-demo', messages, max_tokens: 6, n: 3 });
    expect(three.choices.map((choice) => [choice.index, choice.message.content])).toEqual([0, 1, 2].map((index) => [index, one.choices[0]?.message.content]));
    expect(three.usage?.completion_tokens).toBe(3 * one.usage!.completion_tokens);

    const stream = await client(account.value).chat.completions.create({ model: 'meterway-demo', messages, max_tokens: 6, n: 2, stream: true });
    const texts = ['', ''];
    for await (const chunk of stream) for (const choice of chunk.choices) texts[choice.index] += choice.delta?.content ?? '';
    expect(texts).toEqual([one.choices[0]?.message.content, one.choices[0]?.message.content]);
    await t.settled();
    const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
    expect(rows.map((row) => row.outputTokens).sort((a, b) => a - b)).toEqual([1, 2, 3].map((n) => n * one.usage!.completion_tokens));
  });

  it('bills tool definitions as input, as a provider does', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const tools = [{ type: 'function' as const, function: { name: 'lookup', description: 'Looks a word up. '.repeat(50), parameters: { type: 'object' } } }];
    const plain = await client(account.value).chat.completions.create({ model: 'meterway-demo', messages, max_tokens: 6 });
    const withTools = await client(account.value).chat.completions.create({ model: 'meterway-demo', messages, max_tokens: 6, tools });
    expect(withTools.usage!.prompt_tokens).toBeGreaterThan(plain.usage!.prompt_tokens + 150);
    await t.settled();
    const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
    expect(rows.map((row) => row.inputTokens).sort((a, b) => a - b)).toEqual([plain.usage!.prompt_tokens, withTools.usage!.prompt_tokens]);
  });

  it('lists the priced models for a valid key', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const models = await client(account.value).models.list();
    expect(models.data.map((model) => model.id)).toEqual(expect.arrayContaining(['meterway-demo', 'gpt-4o-mini']));
  });

  it('limits requests per key per minute with 429 and Retry-After, shared through the database', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 7; i++) {
      const response = await fetch(`${t.url}/v1/models`, { headers: { authorization: `Bearer ${account.value}`, origin: 'https://app.example.com' } });
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers.get('retry-after');
    }
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(5);
    expect(statuses.at(-1)).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it('releases the reservations a crashed instance left behind once they expire', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const { meter } = t.app;
    const key = await meter.keys.fresh(account.value);
    const admitted = await meter.admit({
      presented: { key: key!, value: account.value },
      prices: { inputNanosPerToken: 150n, outputNanosPerToken: 600n },
      inputTokens: 10,
      choices: 1,
      requestedMaxTokens: 100,
      maxOutputTokens: 16384,
      caller: { client: '127.0.0.1', endUser: null },
      now: new Date(),
    });
    // Only the call's own hold, not the spare ones the instance may have reserved ahead of the next calls.
    await meter.atRest();
    const [held] = await t.testDb.db.select().from(creditBalances).where(eq(creditBalances.organizationId, account.organizationId));
    expect(held?.reservedNanos).toBe(admitted.reservedNanos);
    expect(await releaseExpired(t.testDb.db, new Date())).toBe(0);
    expect(await releaseExpired(t.testDb.db, new Date(Date.now() + 11 * 60 * 1000))).toBeGreaterThanOrEqual(1);
    const [after] = await t.testDb.db.select().from(creditBalances).where(eq(creditBalances.organizationId, account.organizationId));
    const [spend] = await t.testDb.db.select().from(keySpend).where(eq(keySpend.publishableKeyId, account.keyId));
    expect(after?.reservedNanos).toBe(0n);
    expect(spend?.reservedNanos).toBe(0n);
    expect(await t.testDb.db.select().from(reservations).where(eq(reservations.id, admitted.reservationId))).toEqual([]);
  });
});

import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../app.js';
import { chatCompletions, creditBalances, keySpend, reservations } from '../../db/schema/index.js';
import { rowsOf } from '../../domain/metering/sql-values.js';
import { loadApiConfig } from '../../env.js';
import { openAiCompatible } from '../../gateway/providers/openai-compatible.js';
import { estimateInputTokens } from '../../gateway/tokenize.js';
import { setupFakeUpstreamGateway } from '../../testing/fake-upstream-gateway.js';
import { listedCost, listedPrice } from '../../testing/price-list.js';
import { lockRows } from '../../testing/row-lock.js';

const { t, upstream } = setupFakeUpstreamGateway();

// Expected amounts come from the price list (apps/api/pricing.json: gpt-4o-mini at $0.15 / $0.60 per 1M tokens).
const model = 'gpt-4o-mini';
const messages = [{ role: 'user' as const, content: 'Say hello in eight words.' }];

function client(key: string, origin = 'https://app.example.com') {
  return new OpenAI({ baseURL: `${t.url}/v1`, apiKey: key, maxRetries: 0, defaultHeaders: origin ? { origin } : {} });
}

/** What the database holds once the answers sent so far are settled (settlement follows the answer). */
async function state(organizationId: string, keyId: string) {
  await t.settled();
  const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, organizationId));
  const [balance] = await t.testDb.db.select().from(creditBalances).where(eq(creditBalances.organizationId, organizationId));
  const [spend] = await t.testDb.db.select().from(keySpend).where(eq(keySpend.publishableKeyId, keyId));
  return { rows, balance: balance?.balanceNanos, reserved: balance?.reservedNanos, spent: spend?.spentNanos ?? 0n };
}

/** The max_tokens each call (in order) was due: what the credit still paid after the calls before it, at the model's listed output price. */
function capsDue(credit: bigint, ids: string[], rows: (typeof chatCompletions.$inferSelect)[]) {
  let spent = 0n;
  return ids.map((id) => {
    const row = rows.find((candidate) => candidate.id === id)!;
    const cap = (credit - spent - row.estimatedInputCostNanos!) / listedPrice(model).outputNanosPerToken;
    spent += row.totalCostNanos!;
    return Number(cap);
  });
}

describe('POST /v1/chat/completions through the openai SDK', () => {
  it('meters a non-streaming call: the row, the ledger, the balance and the key spend', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const completion = await client(account.value).chat.completions.create({ model, messages, max_tokens: 8 });
    expect(completion.choices[0]?.message.content).toBe('alpha beta gamma delta epsilon zeta eta theta');
    const after = await state(account.organizationId, account.keyId);
    expect(after.rows).toHaveLength(1);
    const row = after.rows[0]!;
    expect(row).toMatchObject({ id: completion.id, model, inputTokens: 11, outputTokens: 8, usageEstimated: false, provider: 'upstream' });
    expect(row.estimatedInputTokens).toBeGreaterThan(0);
    const cost = listedCost(model, { inputTokens: 11, outputTokens: 8 });
    expect(row.inputCostNanos).toBe(cost.inputNanos);
    expect(row.outputCostNanos).toBe(cost.outputNanos);
    expect(row.totalCostNanos).toBe(cost.totalNanos);
    expect(after.balance).toBe(1_000_000_000n - row.totalCostNanos!);
    expect(after.reserved).toBe(0n);
    expect(after.spent).toBe(row.totalCostNanos);
  });

  it('holds a message of a megabyte of one letter at its tokens, and answers it (counted whole, it held the gateway for minutes)', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const content = 'a'.repeat(1_000_000);
    const completion = await client(account.value).chat.completions.create({ model, messages: [{ role: 'user', content }], max_tokens: 8 });
    const [row] = (await state(account.organizationId, account.keyId)).rows;
    expect(row).toMatchObject({ id: completion.id, estimatedInputTokens: estimateInputTokens([{ role: 'user', content: '' }]) + 125_000 });
  });

  it('streams with usage and charges the usage the provider reported', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const stream = await client(account.value).chat.completions.create({ model, messages, max_tokens: 5, stream: true });
    let text = '';
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) sawUsage = true;
    }
    expect(text).toBe('alpha beta gamma delta epsilon');
    expect(sawUsage).toBe(false);
    expect(upstream().requests.at(-1)?.stream_options).toEqual({ include_usage: true });
    const after = await state(account.organizationId, account.keyId);
    expect(after.rows[0]).toMatchObject({
      inputTokens: 11,
      outputTokens: 5,
      usageEstimated: false,
      totalCostNanos: listedCost(model, { inputTokens: 11, outputTokens: 5 }).totalNanos,
    });
  });

  it('charges nothing when the provider answers with an error (502), and what was reserved when it had the request and hangs (504)', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    upstream().setMode('error');
    const failed = await client(account.value)
      .chat.completions.create({ model, messages, max_tokens: 10 })
      .catch((caught) => caught);
    expect(failed.status).toBe(502);
    expect(failed.error).toMatchObject({ type: 'api_error', code: 'upstream_error', message: 'The model provider failed. Nothing was charged.' });
    expect(await state(account.organizationId, account.keyId)).toMatchObject({ rows: [], balance: 1_000_000_000n, reserved: 0n, spent: 0n });

    upstream().setMode('hang');
    const hung = await client(account.value)
      .chat.completions.create({ model, messages, max_tokens: 10 })
      .catch((caught) => caught);
    expect(hung.status).toBe(504);
    expect(hung.error).toMatchObject({ type: 'api_error', code: 'upstream_timeout' });
    expect(hung.error.message).toMatch(/may bill it, so the call was charged what was reserved for it/);
    const after = await state(account.organizationId, account.keyId);
    // The provider may bill all it could have produced: the estimated input and max_tokens of output.
    expect(after.rows).toHaveLength(1);
    const row = after.rows[0]!;
    expect(row).toMatchObject({ usageEstimated: true, outputTokens: 10, outputCostNanos: listedCost(model, { inputTokens: 0, outputTokens: 10 }).outputNanos });
    expect(row.inputTokens).toBe(row.estimatedInputTokens);
    expect(after).toMatchObject({ balance: 1_000_000_000n - row.totalCostNanos!, reserved: 0n, spent: row.totalCostNanos });
  });

  it('charges from its own count when the provider reports no usage, and flags the row', async () => {
    upstream().setMode('no-usage');
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    await client(account.value).chat.completions.create({ model, messages, max_tokens: 4 });
    const [row] = (await state(account.organizationId, account.keyId)).rows;
    expect(row).toMatchObject({ usageEstimated: true, outputTokens: 4 });
    expect(row!.inputTokens).toBe(row!.estimatedInputTokens);
    expect(row!.totalCostNanos).toBeGreaterThan(0n);
  });

  it('meters a message that spells a special token like any other text', async () => {
    upstream().setMode('no-usage');
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const completion = await client(account.value).chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Repeat <|endoftext|> twice.' }],
      max_tokens: 4,
    });
    const [row] = (await state(account.organizationId, account.keyId)).rows;
    expect(row).toMatchObject({ id: completion.id, usageEstimated: true });
    expect(row!.estimatedInputTokens).toBeGreaterThan(8);
  });

  it('reads a stream to its end when the client goes away, and charges the usage the provider reported', async () => {
    upstream().setMode('slow-stream');
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const abort = new AbortController();
    const stream = await client(account.value).chat.completions.create({ model, messages, max_tokens: 8, stream: true }, { signal: abort.signal });
    let received = 0;
    await (async () => {
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta?.content) received++;
        if (received === 2) abort.abort();
      }
    })().catch(() => undefined);
    for (let attempt = 0; attempt < 60 && (await state(account.organizationId, account.keyId)).rows.length === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [row] = (await state(account.organizationId, account.keyId)).rows;
    // The provider produced all 8 tokens and billed them, though the client took 2.
    expect(row).toMatchObject({ usageEstimated: false, outputTokens: 8, inputTokens: 11 });
  });

  it('lowers max_tokens to what the credit can pay, and refuses when nothing is affordable (402)', async () => {
    // $0.000005 of credit: 11-ish input tokens at 150 n$ and then 600 n$ per output token.
    const poor = await t.account({ creditDollars: 0.000005, budgetDollars: 10 });
    await client(poor.value).chat.completions.create({ model, messages, max_tokens: 1000 });
    const sent = upstream().requests.at(-1)?.max_tokens;
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(10);
    const broke = await t.account({ creditDollars: 0, budgetDollars: 10 });
    const error = await client(broke.value)
      .chat.completions.create({ model, messages })
      .catch((caught) => caught);
    expect(error.status).toBe(402);
    expect(error.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
  });

  it('admits each call that names no max_tokens against what the previous one really cost, though settlement follows the answer', async () => {
    // 100,000 n$: a call without max_tokens holds all of it; it then costs a few thousand.
    const account = await t.account({ creditDollars: 0.0001, budgetDollars: 10 });
    const sentBefore = upstream().requests.length;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await client(account.value).chat.completions.create({ model, messages })).id);
    const capsSent = upstream()
      .requests.slice(sentBefore)
      .map((request) => request.max_tokens);
    expect(capsSent).toEqual(capsDue(100_000n, ids, (await state(account.organizationId, account.keyId)).rows));
  });

  // Postgres only: the test holds a row lock on a connection of its own while the gateway works.
  it.skipIf(!process.env.DATABASE_URL)('waits for its own settlement of the previous call, however slow, before capping the next', async () => {
    const account = await t.account({ creditDollars: 0.0001, budgetDollars: 10 });
    const ids = [(await client(account.value).chat.completions.create({ model, messages, max_tokens: 4 })).id];
    await t.settled();
    // Settlement adds to usage_daily, which admission never touches: holding its row stalls settlement only.
    const release = await lockRows(t.testDb.db, sql`select 1 from app.usage_daily where organization_id = ${account.organizationId}::uuid for update`);
    const sentBefore = upstream().requests.length;
    ids.push((await client(account.value).chat.completions.create({ model, messages })).id);
    const third = client(account.value).chat.completions.create({ model, messages });
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    ids.push((await third).id);

    const capsSent = upstream()
      .requests.slice(sentBefore)
      .map((request) => request.max_tokens);
    expect(capsSent).toEqual(capsDue(100_000n, ids, (await state(account.organizationId, account.keyId)).rows).slice(1));
  });

  it('charges every answer it sent before it shuts down', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const app = await createApp({
      config: loadApiConfig({ LOG_LEVEL: 'silent' }),
      db: t.testDb.handle,
      models: openAiCompatible({ baseUrl: upstream().baseUrl, timeoutMs: 1500, idleTimeoutMs: 1000 }),
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const own = new OpenAI({
      baseURL: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`,
      apiKey: account.value,
      maxRetries: 0,
      defaultHeaders: { origin: 'https://app.example.com' },
    });
    const answers = await Promise.all(Array.from({ length: 6 }, () => own.chat.completions.create({ model, messages, max_tokens: 4 })));
    await app.close();

    const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));
    expect(rows.map((row) => row.id).sort()).toEqual(answers.map((answer) => answer.id).sort());
  });

  it('charges a call whose settlement the database refused at first, once it takes it again', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const db = t.testDb.db;
    const [saved] = rowsOf<{ definition: string }>(
      await db.execute(sql`select pg_get_functiondef('app.settle_calls(uuid, uuid, date, jsonb, timestamptz)'::regprocedure) as definition`),
    );
    // Every attempt is counted (a sequence survives the failing transaction), then refused.
    await db.execute(sql`create sequence app.test_settle_attempts`);
    await db.execute(
      sql.raw(`create or replace function app.settle_calls(p_organization_id uuid, p_key_id uuid, p_period_start date, p_calls jsonb, p_now timestamptz)
      returns table (completion_id text, over_hold_nanos bigint, unpaid_nanos bigint) language plpgsql as $$
      begin perform nextval('app.test_settle_attempts'); raise exception 'the database refuses settlements'; end; $$`),
    );
    try {
      const answer = await client(account.value).chat.completions.create({ model, messages, max_tokens: 4 });
      const attempts = async () =>
        Number(rowsOf<{ value: string }>(await db.execute(sql`select last_value::text as value from app.test_settle_attempts`))[0]!.value);
      for (let poll = 0; poll < 100 && (await attempts()) < 2; poll++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await attempts()).toBeGreaterThanOrEqual(2);
      // Not charged yet, and its hold still stands.
      expect(await db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId))).toEqual([]);
      expect(await db.select().from(reservations).where(eq(reservations.organizationId, account.organizationId))).not.toEqual([]);
      await db.execute(sql.raw(saved!.definition));
      const after = await state(account.organizationId, account.keyId);
      expect(after.rows.map((row) => row.id)).toEqual([answer.id]);
      expect(after).toMatchObject({ balance: 1_000_000_000n - after.rows[0]!.totalCostNanos!, reserved: 0n, spent: after.rows[0]!.totalCostNanos });
    } finally {
      await db.execute(sql.raw(saved!.definition));
      await db.execute(sql`drop sequence app.test_settle_attempts`);
    }
  });

  it('refuses a key whose monthly budget is spent with 429 budget_exceeded', async () => {
    const account = await t.account({ creditDollars: 10, budgetDollars: 0 });
    const error = await client(account.value)
      .chat.completions.create({ model, messages })
      .catch((caught) => caught);
    expect(error.status).toBe(429);
    expect(error.error.code).toBe('budget_exceeded');
  });

  it("answers bad keys, unknown models and bad bodies in OpenAI's error shape", async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const badKey = await client('pk_live_thisIsNotAKeyThatExists12345')
      .chat.completions.create({ model, messages })
      .catch((caught) => caught);
    expect(badKey.status).toBe(401);
    expect(badKey.error).toMatchObject({ code: 'invalid_api_key', param: null });
    const unknown = await client(account.value)
      .chat.completions.create({ model: 'gpt-unknown', messages })
      .catch((caught) => caught);
    expect(unknown.status).toBe(400);
    expect(unknown.error).toMatchObject({ code: 'model_not_found', param: 'model' });
    const empty = await client(account.value)
      .chat.completions.create({ model, messages: [] })
      .catch((caught) => caught);
    expect(empty.status).toBe(400);
    expect(empty.error).toMatchObject({ type: 'invalid_request_error', param: 'messages', message: 'messages must not be empty' });
    const fractional = await client(account.value)
      .chat.completions.create({ model, messages, max_completion_tokens: 2.5 })
      .catch((caught) => caught);
    expect(fractional.status).toBe(400);
    expect(fractional.error).toMatchObject({ param: 'max_completion_tokens', message: 'max_completion_tokens must be a whole number' });
    // An extra field nested 10,000 deep would break serialising the body for the provider.
    const nested = await fetch(`${t.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.value}`, 'content-type': 'application/json', origin: 'https://app.example.com' },
      body: `{"model":"${model}","messages":[{"role":"user","content":"hi"}],"metadata":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    });
    expect(nested.status).toBe(400);
    expect(((await nested.json()) as { error: unknown }).error).toMatchObject({
      type: 'invalid_request_error',
      message: 'The request body nests deeper than 64 levels.',
    });
    expect(await state(account.organizationId, account.keyId)).toMatchObject({ rows: [], balance: 1_000_000_000n, reserved: 0n, spent: 0n });
  });

  it('refuses a body that is not JSON, empty or over 1 MiB in its own words, with codes that do not name the framework', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const send = async (contentType: string, body: string) => {
      const response = await fetch(`${t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.value}`, 'content-type': contentType, origin: 'https://app.example.com' },
        body,
      });
      return { status: response.status, error: ((await response.json()) as { error: { code: string; message: string } }).error };
    };
    const asJson = 'Send one JSON object, with Content-Type: application/json.';
    expect(await send('application/json', '{"model":')).toEqual({
      status: 400,
      error: expect.objectContaining({ code: 'invalid_json', message: `The request body is not valid JSON. ${asJson}` }),
    });
    expect(await send('application/json', '')).toEqual({
      status: 400,
      error: expect.objectContaining({ code: 'invalid_json', message: `The request body is empty. ${asJson}` }),
    });
    expect(await send('application/xml', '<model/>')).toEqual({
      status: 415,
      error: expect.objectContaining({ code: 'unsupported_media_type', message: `The request body is not JSON. ${asJson}` }),
    });
    const content = 'a'.repeat(1024 * 1024);
    expect(await send('application/json', JSON.stringify({ model, messages: [{ role: 'user', content }] }))).toEqual({
      status: 413,
      error: expect.objectContaining({ code: 'request_too_large', message: 'The request body is larger than 1 MiB, the most this endpoint takes.' }),
    });
    expect(await state(account.organizationId, account.keyId)).toMatchObject({ rows: [], balance: 1_000_000_000n, reserved: 0n, spent: 0n });
  });
  it('refuses a caller without a live key, or from an origin the key refuses, before it reads the body', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    const send = async (key: string, origin: string, body: string) => {
      const response = await fetch(`${t.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', origin },
        body,
      });
      return { status: response.status, code: ((await response.json()) as { error: { code: string } }).error.code };
    };
    const forged = `${account.value.slice(0, -4)}AAAA`;
    const overLimit = JSON.stringify({ model, messages: [{ role: 'user', content: 'a'.repeat(2 * 1024 * 1024) }] });
    // Read first, each would have been a JSON error (400, 413): the key and origin are answered instead.
    expect(await send(forged, 'https://app.example.com', '{"model":')).toEqual({ status: 401, code: 'invalid_api_key' });
    expect(await send(forged, 'https://app.example.com', overLimit)).toEqual({ status: 401, code: 'invalid_api_key' });
    expect(await send(account.value, 'https://evil.example', '{"model":')).toEqual({ status: 403, code: 'origin_not_allowed' });
    expect(await send(account.value, 'https://evil.example', overLimit)).toEqual({ status: 403, code: 'origin_not_allowed' });
    // The key itself still works, and nothing was held or charged.
    expect(await send(account.value, 'https://app.example.com', '{"model":')).toEqual({ status: 400, code: 'invalid_json' });
    await client(account.value).chat.completions.create({ model, messages, max_tokens: 16 });
    expect(await state(account.organizationId, account.keyId)).toMatchObject({ rows: [expect.anything()], reserved: 0n });
  });
});

describe('Origin', () => {
  const call = async (key: string, origin: string | undefined) => {
    const response = await fetch(`${t.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(origin ? { origin } : {}) },
      body: JSON.stringify({ model, messages, max_tokens: 2 }),
    });
    return { status: response.status, allowOrigin: response.headers.get('access-control-allow-origin') };
  };

  it('allows the exact origin and localhost on any port; refuses foreign, missing, null and another scheme', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1, origins: ['https://app.example.com', 'localhost'] });
    expect(await call(account.value, 'https://app.example.com')).toEqual({ status: 200, allowOrigin: 'https://app.example.com' });
    expect((await call(account.value, 'http://localhost:5173')).status).toBe(200);
    expect((await call(account.value, 'https://localhost:8443')).status).toBe(200);
    // Refusals still carry CORS headers, so the browser app can read the error.
    expect(await call(account.value, 'https://evil.example.net')).toEqual({ status: 403, allowOrigin: 'https://evil.example.net' });
    expect((await call(account.value, undefined)).status).toBe(403);
    expect((await call(account.value, 'null')).status).toBe(403);
    expect((await call(account.value, 'http://app.example.com')).status).toBe(403);
  });

  it('answers preflights for any origin without a key', async () => {
    const response = await fetch(`${t.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://anywhere.example.org',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://anywhere.example.org');
    expect(response.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
  });
});

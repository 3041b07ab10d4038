import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readMetrics, sampleValue } from '@meterway/service/read-metrics';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletions } from '../db/schema/index.js';
import { setupGateway } from '../testing/gateway-fixture.js';

// An OpenAI-compatible provider that reports 3 output tokens, or, told to, 50 more than the call's limit, or fails.
let overReport = false;
let failing = false;
const upstream = createServer((request, response) => {
  let raw = '';
  request.on('data', (piece: Buffer) => (raw += piece.toString()));
  request.on('end', () => {
    const body = JSON.parse(raw) as { model: string; max_tokens: number };
    if (failing) return void response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'boom' } }));
    const usage = { prompt_tokens: 11, completion_tokens: overReport ? body.max_tokens + 50 : 3 };
    const choices = [{ index: 0, message: { role: 'assistant', content: 'alpha beta gamma' }, finish_reason: 'stop' }];
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ id: 'up', object: 'chat.completion', created: 1, model: body.model, choices, usage }));
  });
});
const env: NodeJS.ProcessEnv = {};
beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  env.UPSTREAM_BASE_URL = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

const t = setupGateway(undefined, env);
const model = 'gpt-4o-mini';
const origin = 'https://app.example.com';

const call = (key: string, headers: Record<string, string> = { origin }) =>
  fetch(`${t.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 8 }),
  });
const scrape = async () => {
  await t.settled();
  const response = await t.app.inject({ url: '/metrics' });
  expect(response.statusCode).toBe(200);
  return response.body;
};
const metric = (text: string, name: string, labels: Record<string, string> = {}) => sampleValue(text, `meterway_api_${name}`, labels);

describe("the api's metrics", () => {
  it("count an admitted call, the tokens and nano-dollars its row was charged, the provider's latency and the call's route", async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    expect((await call(account.value)).status).toBe(200);
    const text = await scrape();
    const [row] = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, account.organizationId));

    expect(metric(text, 'gateway_admissions_total', { outcome: 'admitted' })).toBe(1);
    expect(metric(text, 'gateway_tokens_charged_total', { kind: 'input', model })).toBe(row?.inputTokens);
    expect(metric(text, 'gateway_tokens_charged_total', { kind: 'output', model })).toBe(3);
    expect(metric(text, 'gateway_charged_nanodollars_total')).toBe(Number(row?.totalCostNanos));
    expect(metric(text, 'gateway_meter_overruns_total')).toBe(0);
    expect(metric(text, 'gateway_upstream_duration_seconds_count', { phase: 'headers' })).toBe(1);
    expect(metric(text, 'gateway_upstream_duration_seconds_count', { phase: 'total' })).toBe(1);
    expect(metric(text, 'gateway_holds_outstanding', { kind: 'call' })).toBe(0);
    expect(metric(text, 'gateway_holds_outstanding', { kind: 'spare' })).toBe(0);
    expect(metric(text, 'http_request_duration_seconds_count', { route: '/v1/chat/completions', method: 'POST', status_code: '200' })).toBe(1);
    // node-postgres' pool is read at scrape (none is in use or waiting once the call settled); PGlite has none.
    expect(readMetrics(text).types.get('meterway_api_db_pool_waiting')).toBe(t.testDb.handle.kind === 'postgres' ? 'gauge' : undefined);
    if (t.testDb.handle.kind === 'postgres') expect(metric(text, 'db_pool_waiting')).toBe(0);
  });

  it('count refusals by the error code answered, and nothing as admitted or charged', async () => {
    const before = await scrape();
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    expect((await call('pk_live_not_a_key')).status).toBe(401);
    expect((await call(account.value, { origin: 'https://elsewhere.example.com' })).status).toBe(403);
    const broke = await t.account({ creditDollars: 0, budgetDollars: 1 });
    expect((await call(broke.value)).status).toBe(402);
    const text = await scrape();
    expect(metric(text, 'gateway_admissions_total', { outcome: 'refused', reason: 'invalid_api_key' })).toBe(1);
    expect(metric(text, 'gateway_admissions_total', { outcome: 'refused', reason: 'origin_not_allowed' })).toBe(1);
    expect(metric(text, 'gateway_admissions_total', { outcome: 'refused', reason: 'insufficient_quota' })).toBe(1);
    expect(metric(text, 'gateway_admissions_total', { outcome: 'admitted' })).toBe(metric(before, 'gateway_admissions_total', { outcome: 'admitted' }));
    expect(metric(text, 'gateway_charged_nanodollars_total')).toBe(metric(before, 'gateway_charged_nanodollars_total'));
  });

  it('count a call the provider failed as admitted, not refused, and its hold as given back', async () => {
    const before = await scrape();
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    failing = true;
    try {
      expect((await call(account.value)).status).toBe(502);
    } finally {
      failing = false;
    }
    const text = await scrape();
    expect(metric(text, 'gateway_admissions_total', { outcome: 'admitted' })).toBe(metric(before, 'gateway_admissions_total', { outcome: 'admitted' }) + 1);
    expect(metric(text, 'gateway_admissions_total', { reason: 'upstream_error' })).toBe(0);
    expect(metric(text, 'gateway_holds_outstanding', { kind: 'call' })).toBe(0);
    expect(metric(text, 'gateway_upstream_duration_seconds_count', { phase: 'total' })).toBe(
      metric(before, 'gateway_upstream_duration_seconds_count', { phase: 'total' }) + 1,
    );
  });

  it('count a call whose provider reported more than its hold as a meter overrun', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1 });
    overReport = true;
    try {
      expect((await call(account.value)).status).toBe(200);
    } finally {
      overReport = false;
    }
    expect(metric(await scrape(), 'gateway_meter_overruns_total')).toBe(1);
  });
});

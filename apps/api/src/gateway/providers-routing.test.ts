import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletions } from '../db/schema/index.js';
import { loadApiConfig } from '../env.js';
import { startFakeUpstream } from '../testing/fake-upstream.js';
import { setupGateway } from '../testing/gateway-fixture.js';
import { expectLedgerConsistent } from '../testing/ledger-invariant.js';
import { createModelProvider } from './create-model-provider.js';
import { loadProvidersFile } from './providers-file.js';

// Issue #24: two local provider stand-ins behind one gateway, each model routed by its name.
let first: Awaited<ReturnType<typeof startFakeUpstream>>;
let second: Awaited<ReturnType<typeof startFakeUpstream>>;
const dir = mkdtempSync(join(tmpdir(), 'meterway-providers-'));
const providersFile = join(dir, 'providers.json');
const env: NodeJS.ProcessEnv = { PROVIDERS_FILE: providersFile, FIRST_PROVIDER_KEY: 'sk-first', SECOND_PROVIDER_KEY: 'sk-second' };

beforeAll(async () => {
  [first, second] = await Promise.all([startFakeUpstream(), startFakeUpstream()]);
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: [
        { id: 'first', baseUrl: first.baseUrl, apiKeyEnv: 'FIRST_PROVIDER_KEY' },
        { id: 'second', baseUrl: second.baseUrl, apiKeyEnv: 'SECOND_PROVIDER_KEY', headers: { 'x-api-version': '2026-01-01' } },
      ],
      routes: { 'gpt-4o': [{ provider: 'second', model: 'gpt-4o-2024-08-06' }], 'gpt-4.1': ['second'] },
    }),
  );
});
afterAll(async () => {
  await Promise.all([first?.close(), second?.close()]);
});

// Without `models`, the app makes its provider from the environment (PROVIDERS_FILE), as production does.
const t = setupGateway(undefined, env);

afterEach(async () => {
  await t.settled();
  await expectLedgerConsistent(t.testDb.db);
});

async function complete(key: string, model: string, stream = false) {
  const response = await fetch(`${t.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, origin: 'https://app.example.com', 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 3, stream }),
  });
  return { status: response.status, text: await response.text() };
}

describe('routing by model across providers', () => {
  it("sends each model to its route's provider, under the provider's own model name, with that provider's key and headers", async () => {
    const { organizationId, value } = await t.account({ creditDollars: 5, budgetDollars: 5 });
    const before = { first: first.requests.length, second: second.requests.length };

    expect((await complete(value, 'gpt-4o')).status).toBe(200);
    expect(second.requests.at(-1)).toMatchObject({ model: 'gpt-4o-2024-08-06' });
    expect(second.requestHeaders.at(-1)).toMatchObject({ authorization: 'Bearer sk-second', 'x-api-version': '2026-01-01' });

    expect((await complete(value, 'gpt-4.1', true)).status).toBe(200);
    expect(second.requests.at(-1)).toMatchObject({ model: 'gpt-4.1', stream: true });

    // A priced model without a route goes to the first provider.
    expect((await complete(value, 'gpt-4o-mini')).status).toBe(200);
    expect(first.requests.at(-1)).toMatchObject({ model: 'gpt-4o-mini' });
    expect(first.requestHeaders.at(-1)).toMatchObject({ authorization: 'Bearer sk-first' });
    expect(first.requestHeaders.at(-1)).not.toHaveProperty('x-api-version');

    // The demo model stays the built-in offline one.
    const demo = await complete(value, 'meterway-demo');
    expect(demo.status).toBe(200);
    expect(JSON.parse(demo.text).choices[0].message.content).toMatch(/^Meterway demo/);

    expect({ first: first.requests.length - before.first, second: second.requests.length - before.second }).toEqual({ first: 1, second: 2 });

    // Each row names the provider that served it.
    await t.settled();
    const rows = await t.testDb.db
      .select({ model: chatCompletions.model, provider: chatCompletions.provider })
      .from(chatCompletions)
      .where(eq(chatCompletions.organizationId, organizationId));
    expect(rows.map((row) => `${row.model} ${row.provider}`).sort()).toEqual(['gpt-4.1 second', 'gpt-4o second', 'gpt-4o-mini first', 'meterway-demo demo']);
  });
});

describe('the providers file', () => {
  const priced = ['meterway-demo', 'gpt-4o-mini', 'gpt-4o'];
  const write = (content: unknown) => {
    const path = join(dir, `file-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const load =
    (content: unknown, variables: Record<string, string> = {}) =>
    () =>
      loadProvidersFile(write(content), { pricedModels: priced, env: (name) => variables[name] });

  it('names every problem at once, with where it is', () => {
    const bad = {
      providers: [
        { id: 'demo', baseUrl: 'http://127.0.0.1:1/v1' },
        { id: 'a', baseUrl: 'http://127.0.0.1:1/v1', apiKeyEnv: 'A_KEY' },
        { id: 'a', baseUrl: 'http://127.0.0.1:2/v1' },
      ],
      routes: { 'gpt-4o': ['nowhere'], 'no-such-model': ['a'] },
    };
    expect(load(bad)).toThrow(
      "providers[0].id 'demo' is the built-in demo model's; providers[1].apiKeyEnv: A_KEY is not set; providers[2].id 'a' is used twice; routes.gpt-4o[0]: no provider 'nowhere'; routes.no-such-model: the model is not on the price list",
    );
    expect(load({ providers: [{ id: 'A b', baseUrl: 'ftp://x' }], extra: 1 })).toThrow(
      /providers\[0\]\.id must be 1 to 64 lower-case letters.*providers\[0\]\.baseUrl must be an http:\/\/ or https:\/\/ URL/,
    );
    expect(load('{ not json')).toThrow(/^PROVIDERS_FILE .*file-.*\.json: /);
    expect(load({ providers: [{ id: 'a', baseUrl: 'https://api.example.com/v1', apiKeyEnv: 'A_KEY' }] }, { A_KEY: 'sk-a' })()).toEqual({
      providers: [{ id: 'a', baseUrl: 'https://api.example.com/v1', apiKeyEnv: 'A_KEY', apiKey: 'sk-a' }],
      routes: new Map(),
      circuitBreaker: { failuresToOpen: 5, openSeconds: 30 },
    });
    expect(load({ circuitBreaker: { failuresToOpen: 0, openSeconds: 1.5 } })).toThrow(
      'circuitBreaker.failuresToOpen must be at least 1; circuitBreaker.openSeconds Invalid input: expected int, received number',
    );
  });

  it('refuses UPSTREAM_BASE_URL beside providers in the file: one or the other', () => {
    const path = write({ providers: [{ id: 'a', baseUrl: 'https://api.example.com/v1' }] });
    const config = loadApiConfig({ PROVIDERS_FILE: path, UPSTREAM_BASE_URL: 'https://api.openai.com/v1' });
    expect(() => createModelProvider(config, { pricedModels: priced })).toThrow(/^UPSTREAM_BASE_URL: set it, or providers in PROVIDERS_FILE .*, not both$/);
  });
});

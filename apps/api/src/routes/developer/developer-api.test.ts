import { randomUUID } from 'node:crypto';
import type { SecretKeyFields } from '@meterway/contracts';
import { and, eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, organizations, publishableKeys } from '../../db/schema/index.js';
import { systemActor } from '../../domain/audit/record-audit.js';
import { postEntry } from '../../domain/credit/ledger.js';
import { createKey } from '../../domain/keys/publishable-keys.js';
import { loadSecretKeyHasher } from '../../domain/keys/secret-key-hash.js';
import { secretKeys } from '../../domain/keys/secret-keys.js';
import { dollarsToNanos } from '../../domain/money.js';
import { atRest } from '../../testing/gateway-fixture.js';
import { setupTestApp } from '../../testing/setup-test-app.js';

const t = setupTestApp();

type Json = Record<string, any>;
const keyForm = (scope: 'gateway' | 'admin', name = `${scope} key`): SecretKeyFields => ({ name, budget: 50, budgetType: 'monthly', scope });
const publishableForm = { name: 'Storefront', budget: 10, budgetType: 'monthly', allowedOrigins: ['https://shop.example.com'] } as const;

/** An organisation with $20 of credit, an admin key, a gateway key and a publishable key. */
async function organisation(label: string) {
  const organizationId = randomUUID();
  await t.testDb.db.insert(organizations).values({ id: organizationId, name: `Developer API ${label}` });
  await t.testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollarsToNanos(20), reference: `cs_${randomUUID()}` }));
  const keys = secretKeys(t.testDb.db, await loadSecretKeyHasher(t.testDb.db, undefined));
  const acting = { ...systemActor, organizationId };
  const admin = await keys.create(acting, keyForm('admin', `${label} admin`), new Date());
  const gateway = await keys.create(acting, keyForm('gateway', `${label} gateway`), new Date());
  const publishable = await createKey(t.testDb.db, acting, { ...publishableForm, allowedOrigins: [...publishableForm.allowedOrigins] }, new Date());
  return {
    organizationId,
    acting,
    keys,
    admin: { id: admin.id, value: admin.value!, prefix: admin.prefix },
    gateway: { id: gateway.id, value: gateway.value! },
    publishable,
  };
}

const api = (key: string | undefined, method: InjectOptions['method'], url: string, payload?: Json, headers: Record<string, string> = {}) =>
  t.app.inject({ method, url, headers: { ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}) }, ...(payload ? { payload } : {}) });

const openAiError = (status: number, code?: string) => ({
  error: {
    message: expect.stringMatching(/\S/),
    type: expect.any(String),
    code: code ?? expect.any(String),
    param: expect.toBeOneOf([null, expect.any(String)]),
  },
  status,
});
const failure = (response: { statusCode: number; json: () => Json }) => ({ ...response.json(), status: response.statusCode });

let a: Awaited<ReturnType<typeof organisation>>;
let b: Awaited<ReturnType<typeof organisation>>;

beforeAll(async () => {
  a = await organisation('A');
  b = await organisation('B');
  // Two calls with A's gateway-scoped secret key from a server, one with B's: usage to list.
  for (const [key, count] of [
    [a.gateway.value, 2],
    [b.gateway.value, 1],
  ] as const) {
    for (let call = 0; call < count; call++) {
      const answer = await api(key, 'POST', '/v1/chat/completions', { model: 'meterway-demo', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 5 });
      expect(answer.statusCode, answer.body).toBe(200);
    }
  }
  await atRest(t.app);
});

describe('the developer API with an admin-scoped secret key', () => {
  it("GET /v1/organization/balance: the organisation's credit as /bff/me states it", async () => {
    const response = await api(a.admin.value, 'GET', '/v1/organization/balance');
    expect(response.statusCode, response.body).toBe(200);
    const balance = response.json();
    expect(balance).toEqual({ remainingSpendAmount: expect.any(Number), owedAmount: 0, promotionalCreditAmount: 0, nextCreditExpiry: null });
    expect(balance.remainingSpendAmount).toBeLessThan(20);
    expect(balance.remainingSpendAmount).toBeGreaterThan(19);
  });

  it('GET /v1/organization/credit-history: the top-up, paged', async () => {
    const response = await api(a.admin.value, 'GET', '/v1/organization/credit-history?limit=10');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ items: [{ kind: 'top_up', amount: 20 }], pagination: { nextPageToken: null } });
  });

  it("GET /v1/organization/usage: the organisation's calls, filtered by key, paged with tokens; never another organisation's", async () => {
    const all = await api(a.admin.value, 'GET', '/v1/organization/usage');
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().items).toHaveLength(2);
    expect(all.json().items.every((item: Json) => item.secretKeyId === a.gateway.id && item.publishableKeyId === null)).toBe(true);
    expect((await api(a.admin.value, 'GET', `/v1/organization/usage?secretKeyId=${a.gateway.id}`)).json().items).toHaveLength(2);
    expect((await api(a.admin.value, 'GET', `/v1/organization/usage?publishableKeyId=${a.publishable.id}`)).json().items).toEqual([]);
    // B's key as a filter shows none of B's calls.
    expect((await api(a.admin.value, 'GET', `/v1/organization/usage?secretKeyId=${b.gateway.id}`)).json().items).toEqual([]);
    const first = (await api(a.admin.value, 'GET', '/v1/organization/usage?limit=1')).json();
    expect(first.items).toHaveLength(1);
    const second = (await api(a.admin.value, 'GET', `/v1/organization/usage?limit=1&nextPageToken=${first.pagination.nextPageToken}`)).json();
    expect(second.items[0].id).not.toBe(first.items[0].id);
    // A's page token does not open B's list.
    const replayed = await api(b.admin.value, 'GET', `/v1/organization/usage?limit=1&nextPageToken=${first.pagination.nextPageToken}`);
    expect(failure(replayed)).toEqual(openAiError(400, 'invalid_request'));
  });

  it('GET /v1/organization/usage/daily: the sums per day by model and key', async () => {
    const response = await api(a.admin.value, 'GET', '/v1/organization/usage/daily?days=7');
    expect(response.statusCode, response.body).toBe(200);
    const daily = response.json();
    expect(daily.days).toHaveLength(7);
    expect(daily.totals.calls).toBe(2);
    expect(daily.keys).toEqual([{ id: a.gateway.id, name: 'A gateway', deleted: false }]);
    expect(failure(await api(a.admin.value, 'GET', `/v1/organization/usage/daily?publishableKeyId=${b.publishable.id}`))).toEqual(
      openAiError(404, 'not_found'),
    );
  });

  it('publishable keys: list, create, update and delete with the BFF rules, recorded in the audit log as the secret key', async () => {
    const listed = await api(a.admin.value, 'GET', '/v1/organization/publishable-keys');
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().publishableKeys.map((key: Json) => key.id)).toEqual([a.publishable.id]);

    const created = await api(a.admin.value, 'POST', '/v1/organization/publishable-keys', { ...publishableForm, name: 'From the API' });
    expect(created.statusCode, created.body).toBe(201);
    const key = created.json();
    expect(key).toMatchObject({ name: 'From the API', value: expect.stringMatching(/^pk_live_/), perClientLimits: { requestsPerMinute: 30, spendPerDay: 1 } });
    const unpriced = await api(a.admin.value, 'POST', '/v1/organization/publishable-keys', { ...publishableForm, allowedModels: ['gpt-9'] });
    expect(failure(unpriced)).toEqual(openAiError(400, 'invalid_request'));
    expect(unpriced.json().error).toMatchObject({ param: 'allowedModels', message: expect.stringContaining('gpt-9') });

    const updated = await api(a.admin.value, 'PUT', `/v1/organization/publishable-keys/${key.id}`, { ...publishableForm, name: 'Renamed', budget: 12 });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ id: key.id, name: 'Renamed', spendLimitAmount: 12 });
    const deleted = await api(a.admin.value, 'DELETE', `/v1/organization/publishable-keys/${key.id}`, { reason: 'rotated by a script' });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(failure(await api(a.admin.value, 'DELETE', `/v1/organization/publishable-keys/${key.id}`))).toEqual(openAiError(404, 'not_found'));

    const audit = await t.testDb.db
      .select({ actorPersonId: auditEntries.actorPersonId, actorEmail: auditEntries.actorEmail, action: auditEntries.action })
      .from(auditEntries)
      .where(and(eq(auditEntries.organizationId, a.organizationId), eq(auditEntries.target, 'Renamed')));
    const actor = `secret key ${a.admin.prefix}… (A admin)`;
    expect(audit).toEqual(
      expect.arrayContaining([
        { actorPersonId: null, actorEmail: actor, action: 'key.updated' },
        { actorPersonId: null, actorEmail: actor, action: 'key.deleted' },
      ]),
    );
  });

  it("never shows or changes another organisation's keys: PUT and DELETE of B's key id answer 404, as an unknown id does", async () => {
    const listed = (await api(a.admin.value, 'GET', '/v1/organization/publishable-keys')).body;
    expect(listed).not.toContain(b.publishable.id);
    const put = await api(a.admin.value, 'PUT', `/v1/organization/publishable-keys/${b.publishable.id}`, { ...publishableForm, name: 'Taken over' });
    const putUnknown = await api(a.admin.value, 'PUT', `/v1/organization/publishable-keys/${randomUUID()}`, publishableForm);
    expect(failure(put)).toEqual(openAiError(404, 'not_found'));
    expect(put.json()).toEqual(putUnknown.json());
    expect(failure(await api(a.admin.value, 'DELETE', `/v1/organization/publishable-keys/${b.publishable.id}`))).toEqual(openAiError(404, 'not_found'));
    // A's secret key ids are not publishable keys either.
    expect((await api(a.admin.value, 'DELETE', `/v1/organization/publishable-keys/${a.gateway.id}`)).statusCode).toBe(404);
    const [ofB] = await t.testDb.db.select().from(publishableKeys).where(eq(publishableKeys.id, b.publishable.id));
    expect(ofB).toMatchObject({ name: 'Storefront', deletedAt: null });
  });
});

describe('who may call it', () => {
  const routes: [InjectOptions['method'], string, Json?][] = [
    ['GET', '/v1/organization/balance'],
    ['GET', '/v1/organization/credit-history'],
    ['GET', '/v1/organization/usage'],
    ['GET', '/v1/organization/usage/daily'],
    ['GET', '/v1/organization/publishable-keys'],
    ['POST', '/v1/organization/publishable-keys', publishableForm],
  ];
  const refusedEverywhere = async (key: string | undefined, status: number, code: string, headers: Record<string, string> = {}) => {
    for (const [method, url, body] of routes)
      expect(failure(await api(key, method, url, body, headers)), `${method} ${url}`).toEqual(openAiError(status, code));
  };

  it('refuses no key, a malformed one, an unknown one and a publishable key with 401', async () => {
    await refusedEverywhere(undefined, 401, 'invalid_api_key');
    await refusedEverywhere(`sk_live_${'0'.repeat(32)}`, 401, 'invalid_api_key');
    await refusedEverywhere('not-a-key', 401, 'invalid_api_key');
    await refusedEverywhere(a.publishable.value, 401, 'invalid_api_key');
    expect((await api(a.publishable.value, 'GET', '/v1/organization/balance')).json().error.message).toMatch(/publishable key/);
  });

  it('refuses a gateway-scoped secret key with 403', async () => {
    await refusedEverywhere(a.gateway.value, 403, 'gateway_key_not_allowed');
  });

  it('refuses an admin key sent with an Origin header (from a web page) with 403', async () => {
    await refusedEverywhere(a.admin.value, 403, 'secret_key_in_browser', { origin: 'https://shop.example.com' });
    const fromPage = await api(a.admin.value, 'GET', '/v1/organization/balance', undefined, { origin: 'https://shop.example.com' });
    expect(fromPage.headers['access-control-allow-origin']).toBe('https://shop.example.com');
  });

  it('refuses a deleted key with 401', async () => {
    const doomed = await a.keys.create(a.acting, keyForm('admin', 'Doomed'), new Date());
    expect((await api(doomed.value, 'GET', '/v1/organization/balance')).statusCode).toBe(200);
    await a.keys.delete(a.acting, doomed.id, new Date());
    await refusedEverywhere(doomed.value, 401, 'invalid_api_key');
  });

  it("takes a rolled key's old value within the overlap, not after it", async () => {
    const rolled = await a.keys.create(a.acting, keyForm('admin', 'Rolled'), new Date());
    const fresh = await a.keys.roll(a.acting, rolled.id, 1, new Date());
    expect((await api(rolled.value, 'GET', '/v1/organization/balance')).statusCode).toBe(200);
    expect((await api(fresh.value, 'GET', '/v1/organization/balance')).statusCode).toBe(200);
    await t.testDb.db
      .update(publishableKeys)
      .set({ previousValueExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(publishableKeys.id, rolled.id));
    await refusedEverywhere(rolled.value, 401, 'invalid_api_key');
    expect((await api(fresh.value, 'GET', '/v1/organization/balance')).statusCode).toBe(200);
  });

  it('answers a bad query, path or body with a 400 in OpenAI shape naming the field', async () => {
    const cases: [InjectOptions['method'], string, Json | undefined, string | null][] = [
      ['GET', '/v1/organization/usage/daily?days=500', undefined, 'days'],
      ['GET', '/v1/organization/usage/daily?days=x', undefined, 'days'],
      ['GET', '/v1/organization/usage?limit=0', undefined, 'limit'],
      ['GET', `/v1/organization/usage?publishableKeyId=${a.publishable.id}&secretKeyId=${a.gateway.id}`, undefined, 'secretKeyId'],
      ['GET', '/v1/organization/credit-history?asc=maybe', undefined, 'asc'],
      ['GET', '/v1/organization/usage?nextPageToken=forged.token', undefined, 'nextPageToken'],
      ['PUT', '/v1/organization/publishable-keys/not-a-uuid', publishableForm, 'publishableKeyId'],
      ['POST', '/v1/organization/publishable-keys', { name: 'x', budget: -1 }, 'name'],
      ['POST', '/v1/organization/publishable-keys', { ...publishableForm, name: 'a\u0000b' }, null],
    ];
    for (const [method, url, body, param] of cases) {
      const response = await api(a.admin.value, method, url, body);
      expect(failure(response), `${method} ${url}`).toEqual(openAiError(400, 'invalid_request'));
      expect(response.json().error.param, `${method} ${url}`).toBe(param);
    }
    expect((await api(a.admin.value, 'GET', '/v1/organization/usage/daily?days=500')).json().error.message).toMatch(/days must be at most 90/);
  });

  it('refuses a body that is not JSON, or over the limit, in its own words', async () => {
    const post = (payload: string, contentType: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/organization/publishable-keys',
        headers: { authorization: `Bearer ${a.admin.value}`, 'content-type': contentType },
        payload,
      });
    const broken = await post('{"name":', 'application/json');
    expect(failure(broken)).toEqual(openAiError(400, 'invalid_json'));
    expect(broken.json().error.message).toBe('The request body is not valid JSON. Send one JSON object, with Content-Type: application/json.');
    expect(failure(await post('name=x', 'application/x-www-form-urlencoded'))).toEqual(openAiError(415, 'unsupported_media_type'));
    const large = await post(JSON.stringify({ ...publishableForm, name: 'x'.repeat(300 * 1024) }), 'application/json');
    expect(failure(large)).toEqual(openAiError(413, 'request_too_large'));
    expect(large.json().error.message).toBe('The request body is larger than 256 KiB, the most this endpoint takes.');
  });

  it('answers an unknown endpoint under /v1/organization in OpenAI shape', async () => {
    expect(failure(await api(a.admin.value, 'GET', '/v1/organization/nothing'))).toEqual(openAiError(404, 'unknown_endpoint'));
  });
});

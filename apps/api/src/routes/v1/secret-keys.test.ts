import { type SQL, sql } from 'drizzle-orm';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { systemActor } from '../../domain/audit/record-audit.js';
import { loadSecretKeyHasher } from '../../domain/keys/secret-key-hash.js';
import { secretKeys } from '../../domain/keys/secret-keys.js';
import { listChatCompletions } from '../../domain/usage/list-chat-completions.js';
import { setupFakeUpstreamGateway } from '../../testing/fake-upstream-gateway.js';

const { t } = setupFakeUpstreamGateway();

/** An organisation with $5 of credit (and a publishable key, unused) and a secret key of the scope. */
async function secretKeyOf(scope: 'gateway' | 'admin') {
  const { organizationId } = await t.account({ creditDollars: 5, budgetDollars: 5 });
  const keys = secretKeys(t.testDb.db, await loadSecretKeyHasher(t.testDb.db, undefined));
  const viewer = { organizationId, ...systemActor };
  const key = await keys.create(viewer, { name: 'Server', budget: 5, budgetType: 'monthly', scope }, new Date());
  return { organizationId, keys, viewer, id: key.id, value: key.value! };
}

const ask = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Hi' }], max_tokens: 2 };

/** What the gateway answers a small chat completion with this key, sent by fetch with these headers. */
async function callWith(value: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${t.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${value}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(ask),
  });
  return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string } } };
}

/** A raw query's rows, from node-postgres or PGlite alike. */
async function rowsOf<T>(query: SQL): Promise<T[]> {
  const result = (await t.testDb.db.execute(query)) as { rows: T[] };
  return result.rows;
}

const callsOf = async (organizationId: string) =>
  (await listChatCompletions({ db: t.testDb.db, secret: 'test' }, { organizationId }, { asc: false, limit: 100 })).items;

describe('a secret key on the gateway', () => {
  it("works from a server with the official SDK (no Origin), and the call's row names the secret key", async () => {
    const key = await secretKeyOf('gateway');
    const client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: key.value, maxRetries: 0 });
    const completion = await client.chat.completions.create(ask);
    expect(completion.choices[0]?.message.content).toEqual(expect.any(String));
    expect((await client.models.list()).data.map((model) => model.id)).toContain('gpt-4o-mini');

    await t.settled();
    const [row] = await callsOf(key.organizationId);
    expect(row).toMatchObject({ secretKeyId: key.id, publishableKeyId: null, totalCost: expect.any(Number) });
    const ofKey = await listChatCompletions({ db: t.testDb.db, secret: 'test' }, key, { asc: false, limit: 100, secretKeyId: key.id });
    expect(ofKey.items.map((item) => item.id)).toEqual([row!.id]);
    // Asked for as a publishable key, the secret key's id matches nothing.
    const asPublishable = await listChatCompletions({ db: t.testDb.db, secret: 'test' }, key, { asc: false, limit: 100, publishableKeyId: key.id });
    expect(asPublishable.items).toEqual([]);
  });

  it('is refused from a browser (any Origin) with a message that says why, and nothing is charged', async () => {
    const key = await secretKeyOf('gateway');
    for (const origin of ['https://app.example.com', 'null', 'http://localhost:5173']) {
      const { status, body } = await callWith(key.value, { origin });
      expect(status, origin).toBe(403);
      expect(body.error).toMatchObject({ code: 'secret_key_in_browser', message: expect.stringContaining('Secret keys are for servers') });
    }
    expect(await callsOf(key.organizationId)).toEqual([]);
  });

  it('refuses an admin-scoped key, a deleted key and a malformed one; a rolled key takes both values during the overlap', async () => {
    const admin = await secretKeyOf('admin');
    expect(await callWith(admin.value)).toMatchObject({ status: 403, body: { error: { code: 'admin_key_not_allowed' } } });

    const key = await secretKeyOf('gateway');
    expect((await callWith(`${key.value}x`)).status).toBe(401);
    expect((await callWith(key.value.replace('sk_live_', 'pk_live_'))).status).toBe(401);

    const rolled = await key.keys.roll(key.viewer, key.id, 1, new Date());
    expect((await callWith(key.value)).status).toBe(200);
    expect((await callWith(rolled.value!)).status).toBe(200);
    await key.keys.delete(key.viewer, key.id, new Date());
    // As the route does: this instance stops using what it holds for the key at once.
    t.app.meter.forgetKey(key.id);
    expect((await callWith(rolled.value!)).body.error).toMatchObject({ code: 'invalid_api_key' });
    expect((await callWith(key.value)).status).toBe(401);
  });

  it("counts the end user the server names in Meterway-End-User against the key's per-end-user caps", async () => {
    const key = await secretKeyOf('gateway');
    await key.keys.update(key.viewer, key.id, { name: 'Server', budget: 5, budgetType: 'monthly', perEndUserLimits: { requestsPerMinute: 1 } }, new Date());
    t.app.meter.forgetKey(key.id);

    expect((await callWith(key.value, { 'meterway-end-user': 'alice' })).status).toBe(200);
    expect(await callWith(key.value, { 'meterway-end-user': 'alice' })).toMatchObject({ status: 429, body: { error: { code: 'rate_limit_exceeded' } } });
    expect((await callWith(key.value, { 'meterway-end-user': 'bob' })).status).toBe(200);
    expect(await callWith(key.value, { 'meterway-end-user': 'carol smith' })).toMatchObject({ status: 400, body: { error: { code: 'invalid_end_user' } } });
    await t.settled();
    expect((await callsOf(key.organizationId)).map((call) => call.endUser).sort()).toEqual(['alice', 'bob']);

    // From a web page anyone could name any end user: a publishable key ignores the header.
    const page = await t.account({ creditDollars: 1, budgetDollars: 1 });
    expect((await callWith(page.value, { origin: 'https://app.example.com', 'meterway-end-user': 'alice' })).status).toBe(200);
    await t.settled();
    expect((await callsOf(page.organizationId)).map((call) => call.endUser)).toEqual([null]);
  });

  it('refuses its stored hash as a credential, as anything not shaped like a key we issue, before any lookup (401)', async () => {
    const key = await secretKeyOf('gateway');
    const [stored] = await rowsOf<{ value: string }>(sql`select value from app.publishable_keys where id = ${key.id}`);
    expect(stored!.value).toMatch(/^hmac-sha256:/);
    // Copied from the database, a replica or a backup, the hash opens nothing.
    expect(await callWith(stored!.value)).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
    for (const forged of ['pk_test_abc', 'Bearer', 'sk_live_short', "pk_live_' or 1=1 --"]) expect((await callWith(forged)).status).toBe(401);
    expect((await callWith(key.value)).status).toBe(200);
  });

  it("never stores a secret key's value: no table holds it, only its keyed hash", async () => {
    const key = await secretKeyOf('gateway');
    const rolled = await key.keys.roll(key.viewer, key.id, 1, new Date());
    expect((await callWith(rolled.value!)).status).toBe(200);
    await t.settled();

    const names = await rowsOf<{ name: string }>(
      sql`SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema = 'app' AND table_type = 'BASE TABLE'`,
    );
    expect(names.length).toBeGreaterThan(10);
    for (const { name } of names) {
      for (const value of [key.value, rolled.value!]) {
        // The random part alone: no encoding or prefix of it hides the key.
        const found = await rowsOf(sql`SELECT 1 FROM ${sql.raw(name)} AS t WHERE t::text LIKE ${`%${value.slice(8, 28)}%`} LIMIT 1`);
        expect(found, name).toHaveLength(0);
      }
    }
  });
});

import { describe, expect, it } from 'vitest';
import { setupTestApp } from '../../testing/setup-test-app.js';

const t = setupTestApp({}, { identity: true });

type Json = Record<string, any>;
const call = (cookie: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Json) =>
  t.app.inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });

const valid = { name: 'Backend', budget: 20, budgetType: 'monthly', scope: 'gateway' };

describe('secret keys', () => {
  it('creates a key shown once: an sk_live_ value and its prefix, a scope, no origins, no per-address caps; the list never shows the value', async () => {
    const { cookie, personId, email } = await t.signUpMember();
    const created = await call(cookie, 'POST', '/bff/secret-keys', valid);
    expect(created.statusCode).toBe(201);
    const key = created.json();
    expect(key).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Backend',
      value: expect.stringMatching(/^sk_live_[0-9A-Za-z]{32}$/),
      prefix: key.value.slice(0, 12),
      scope: 'gateway',
      spendLimitAmount: 20,
      spendLimitPeriodType: 'monthly',
      currentPeriodSpendAmount: 0,
      allowedModels: null,
      maxOutputTokensPerCall: null,
      // A server calls from one address: no per-address caps unless the owner sets them.
      perClientLimits: { requestsPerMinute: null, spendPerDay: null },
      perEndUserLimits: { requestsPerMinute: null, spendPerDay: null, spendPerMonth: null },
      endUserTokens: null,
      responseCacheSeconds: null,
      // Cached answers are each end user's own unless the owner shares them.
      responseCacheShared: false,
      worstCaseDailySpend: 20,
      madeBy: { personId, email, role: 'owner' },
    });
    const { value, ...listed } = key;
    expect((await call(cookie, 'GET', '/bff/secret-keys')).json()).toEqual({ secretKeys: [listed] });
    // The two kinds stay in their own lists.
    expect((await call(cookie, 'GET', '/bff/publishable-keys')).json()).toEqual({ publishableKeys: [] });
    expect(JSON.stringify((await call(cookie, 'GET', '/bff/secret-keys')).json())).not.toContain(value.slice(8));
  });

  it('takes the admin scope, and the same controls and validation as publishable keys', async () => {
    const { cookie } = await t.users.signUp();
    const admin = await call(cookie, 'POST', '/bff/secret-keys', {
      ...valid,
      scope: 'admin',
      allowedModels: ['gpt-4o-mini'],
      perClientLimits: { requestsPerMinute: 120, spendPerDay: 5 },
    });
    expect(admin.json()).toMatchObject({ scope: 'admin', allowedModels: ['gpt-4o-mini'], perClientLimits: { requestsPerMinute: 120, spendPerDay: 5 } });

    const bad = await call(cookie, 'POST', '/bff/secret-keys', { ...valid, name: 'ab', scope: 'root', allowedModels: ['no-such-model'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'name', message: 'Minimum length is 3' }),
        expect.objectContaining({ field: 'scope', message: 'scope must be gateway or admin' }),
      ]),
    );
    const unpriced = await call(cookie, 'POST', '/bff/secret-keys', { ...valid, allowedModels: ['no-such-model'] });
    expect(unpriced.statusCode).toBe(400);
    expect(unpriced.json().errors).toEqual([{ field: 'allowedModels', message: "The model 'no-such-model' is not on the price list" }]);
  });

  it('updates a key without changing its scope, rolls it to a new value shown once, and deletes it', async () => {
    const { cookie } = await t.users.signUp();
    const key = (await call(cookie, 'POST', '/bff/secret-keys', { ...valid, scope: 'admin' })).json();
    const updated = await call(cookie, 'PUT', `/bff/secret-keys/${key.id}`, { name: 'Renamed', budget: 5, budgetType: 'monthly', scope: 'gateway' });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({ name: 'Renamed', spendLimitAmount: 5, scope: 'admin', prefix: key.prefix });
    expect(updated.json()).not.toHaveProperty('value');

    const rolled = await call(cookie, 'POST', `/bff/secret-keys/${key.id}/roll`, { overlapHours: 2 });
    expect(rolled.statusCode).toBe(200);
    const next = rolled.json();
    expect(next.value).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(next.value).not.toBe(key.value);
    expect(next.prefix).toBe(next.value.slice(0, 12));
    expect(next.previousValueExpiresAt).toEqual(expect.any(String));

    expect((await call(cookie, 'DELETE', `/bff/secret-keys/${key.id}`, { reason: 'Leaked in a log' })).statusCode).toBe(204);
    expect((await call(cookie, 'GET', '/bff/secret-keys')).json()).toEqual({ secretKeys: [] });
    expect((await call(cookie, 'PUT', `/bff/secret-keys/${key.id}`, valid)).statusCode).toBe(404);
    const audit = (await call(cookie, 'GET', '/bff/audit-log')).json();
    expect(audit.items.map((entry: Json) => entry.action)).toEqual(['key.deleted', 'key.rolled', 'key.updated', 'key.created']);
  });

  it("keeps kinds and organisations apart: a publishable key's id or another organisation's key answers 404", async () => {
    const alice = await t.users.signUp();
    const bob = await t.users.signUp();
    const secret = (await call(alice.cookie, 'POST', '/bff/secret-keys', valid)).json();
    const publishable = (await call(alice.cookie, 'POST', '/bff/publishable-keys', { ...valid, allowedOrigins: [] })).json();

    for (const response of [
      await call(alice.cookie, 'PUT', `/bff/secret-keys/${publishable.id}`, valid),
      await call(alice.cookie, 'POST', `/bff/secret-keys/${publishable.id}/roll`, { overlapHours: 0 }),
      await call(alice.cookie, 'DELETE', `/bff/secret-keys/${publishable.id}`),
      await call(bob.cookie, 'PUT', `/bff/secret-keys/${secret.id}`, valid),
      await call(bob.cookie, 'DELETE', `/bff/secret-keys/${secret.id}`),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ detail: 'Unknown secret key.' });
    }
    for (const response of [
      await call(alice.cookie, 'PUT', `/bff/publishable-keys/${secret.id}`, { ...valid, allowedOrigins: [] }),
      await call(alice.cookie, 'DELETE', `/bff/publishable-keys/${secret.id}`),
      await call(alice.cookie, 'GET', `/bff/publishable-keys/${secret.id}/callers`),
    ]) {
      expect(response.statusCode).toBe(404);
    }
    expect((await call(bob.cookie, 'GET', '/bff/secret-keys')).json()).toEqual({ secretKeys: [] });
    expect((await call(alice.cookie, 'GET', '/bff/secret-keys')).json().secretKeys).toHaveLength(1);
  });

  it('lets only the roles that manage keys see and change secret keys', async () => {
    const owner = await t.users.signUp();
    const key = (await call(owner.cookie, 'POST', '/bff/secret-keys', valid)).json();
    const { organizationId } = (await call(owner.cookie, 'GET', '/bff/me')).json();
    const { members } = (await call(owner.cookie, 'GET', '/bff/members')).json();
    await t.setRole({ organizationId, personId: members[0].personId }, 'billing');
    for (const response of [
      await call(owner.cookie, 'GET', '/bff/secret-keys'),
      await call(owner.cookie, 'POST', '/bff/secret-keys', valid),
      await call(owner.cookie, 'POST', `/bff/secret-keys/${key.id}/roll`, { overlapHours: 0 }),
    ]) {
      expect(response.statusCode).toBe(403);
    }
  });

  it('never makes a key that does more than its maker: a developer gets no admin key, made or rolled (403), and keeps gateway keys', async () => {
    const person = await t.users.signUp();
    const { organizationId } = (await call(person.cookie, 'GET', '/bff/me')).json();
    const { members } = (await call(person.cookie, 'GET', '/bff/members')).json();
    // Made while the person was an owner; then their role becomes developer.
    const adminKey = (await call(person.cookie, 'POST', '/bff/secret-keys', { ...valid, scope: 'admin' })).json();
    await t.setRole({ organizationId, personId: members[0].personId }, 'developer');

    const refused = await call(person.cookie, 'POST', '/bff/secret-keys', { ...valid, scope: 'admin' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().detail).toBe(
      'An admin key reads the credit history and manages keys; your role (developer) may not do all of that, so it cannot make or roll one. Ask an owner or an admin.',
    );
    expect((await call(person.cookie, 'POST', `/bff/secret-keys/${adminKey.id}/roll`, { overlapHours: 0 })).statusCode).toBe(403);
    expect((await call(person.cookie, 'POST', '/bff/secret-keys', valid)).statusCode).toBe(201);
    const listed = (await call(person.cookie, 'GET', '/bff/secret-keys')).json().secretKeys;
    expect(listed.filter((key: { scope: string }) => key.scope === 'admin')).toHaveLength(1);
  });
});

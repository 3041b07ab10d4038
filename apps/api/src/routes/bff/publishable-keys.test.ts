import { describe, expect, it } from 'vitest';
import { postEntry } from '../../domain/credit/ledger.js';
import { callerHours } from '../../db/schema/index.js';
import { dollarsToNanos } from '../../domain/money.js';
import { listedPrice, priceList } from '../../testing/price-list.js';
import { setupTestApp } from '../../testing/setup-test-app.js';

const t = setupTestApp({}, { identity: true });

type Json = Record<string, any>;
const call = (cookie: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Json) =>
  t.app.inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });

const valid = { name: 'Storefront', budget: 10, budgetType: 'monthly', allowedOrigins: ['https://shop.example.com', 'localhost'] };

describe('publishable keys', () => {
  it("creates a key: a pk_live_ value, dollars, origins, and it lists with this month's spend", async () => {
    const { cookie, personId, email } = await t.signUpMember();
    const created = await call(cookie, 'POST', '/bff/publishable-keys', valid);
    expect(created.statusCode).toBe(201);
    const key = created.json();
    expect(key).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Storefront',
      value: expect.stringMatching(/^pk_live_[0-9A-Za-z]{32}$/),
      spendLimitAmount: 10,
      spendLimitPeriodType: 'monthly',
      currentPeriodSpendAmount: 0,
      allowedOrigins: ['https://shop.example.com', 'localhost'],
      // A new key is safe by default: every priced model, the model's own output limit, per address 30 requests a minute and $1 a day.
      allowedModels: null,
      maxOutputTokensPerCall: null,
      perClientLimits: { requestsPerMinute: 30, spendPerDay: 1 },
      // No per-end-user caps and no end-user tokens unless the owner sets them.
      perEndUserLimits: { requestsPerMinute: null, spendPerDay: null, spendPerMonth: null },
      endUserTokens: null,
      responseCacheSeconds: null,
      // Cached answers are each end user's own unless the owner shares them.
      responseCacheShared: false,
      worstCaseDailySpend: 10,
      // Who holds the value: the person who made it, an owner of the organisation.
      madeBy: { personId, email, role: 'owner' },
    });
    const second = (await call(cookie, 'POST', '/bff/publishable-keys', { ...valid, name: 'Second' })).json();
    expect(second.value).not.toBe(key.value);
    const list = await call(cookie, 'GET', '/bff/publishable-keys');
    expect(list.json()).toEqual({ publishableKeys: [key, second] });
  });

  it('normalises origins: blanks dropped, duplicates removed, trailing slash and case folded into the origin', async () => {
    const { cookie } = await t.users.signUp();
    const created = await call(cookie, 'POST', '/bff/publishable-keys', {
      ...valid,
      name: '  Trimmed  ',
      allowedOrigins: ['', 'https://App.Example.com/', '  ', 'https://app.example.com', 'http://localhost:5173', 'localhost'],
    });
    expect(created.json()).toMatchObject({ name: 'Trimmed', allowedOrigins: ['https://app.example.com', 'http://localhost:5173', 'localhost'] });
  });

  it('updates a key and deletes it softly: 204, gone from the list, 404 afterwards', async () => {
    const { cookie } = await t.users.signUp();
    const key = (await call(cookie, 'POST', '/bff/publishable-keys', valid)).json();
    const updated = await call(cookie, 'PUT', `/bff/publishable-keys/${key.id}`, { name: 'Renamed', budget: 25.5, budgetType: 'monthly', allowedOrigins: [] });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toEqual({ ...key, name: 'Renamed', spendLimitAmount: 25.5, allowedOrigins: [], worstCaseDailySpend: 25.5 });

    const deleted = await call(cookie, 'DELETE', `/bff/publishable-keys/${key.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await call(cookie, 'GET', '/bff/publishable-keys')).json()).toEqual({ publishableKeys: [] });
    expect((await call(cookie, 'PUT', `/bff/publishable-keys/${key.id}`, valid)).statusCode).toBe(404);
    expect((await call(cookie, 'DELETE', `/bff/publishable-keys/${key.id}`)).statusCode).toBe(404);
  });

  it("keeps organisations apart: another organisation's key id answers 404 and is left untouched", async () => {
    const alice = await t.users.signUp();
    const bob = await t.users.signUp();
    const key = (await call(alice.cookie, 'POST', '/bff/publishable-keys', valid)).json();
    for (const response of [
      await call(bob.cookie, 'PUT', `/bff/publishable-keys/${key.id}`, { ...valid, name: 'Hijacked' }),
      await call(bob.cookie, 'DELETE', `/bff/publishable-keys/${key.id}`),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ status: 404, detail: 'Unknown publishable key.' });
    }
    expect((await call(bob.cookie, 'GET', '/bff/publishable-keys')).json()).toEqual({ publishableKeys: [] });
    expect((await call(alice.cookie, 'GET', '/bff/publishable-keys')).json().publishableKeys[0].name).toBe('Storefront');
  });

  it.each([
    ['a missing name', { ...valid, name: undefined }, 'name', 'This field is required'],
    ['a blank name', { ...valid, name: '   ' }, 'name', 'This field is required'],
    ['a name of 101 characters', { ...valid, name: 'x'.repeat(101) }, 'name', 'Maximum length is 100'],
    ['a missing budget', { ...valid, budget: undefined }, 'budget', 'This field is required'],
    ['a text budget', { ...valid, budget: '10' }, 'budget', 'This field is required'],
    ['a negative budget', { ...valid, budget: -1 }, 'budget', 'Minimum is 0'],
    ['a budget over the maximum', { ...valid, budget: 1_000_001 }, 'budget', 'Maximum is 1000000'],
    ['another period', { ...valid, budgetType: 'weekly' }, 'budgetType', 'budgetType must be monthly'],
    ['an origin without scheme', { ...valid, allowedOrigins: ['shop.example.com'] }, 'allowedOrigins', 'All items must start with http:// or https://'],
    [
      'an origin with a path',
      { ...valid, allowedOrigins: ['https://shop.example.com/app'] },
      'allowedOrigins',
      'All items must start with http:// or https://',
    ],
    ['an ftp origin', { ...valid, allowedOrigins: ['ftp://files.example.com'] }, 'allowedOrigins', 'All items must start with http:// or https://'],
    ['an empty model list', { ...valid, allowedModels: [] }, 'allowedModels', 'Choose at least one model, or none (null) for every priced model'],
    ['a model not on the price list', { ...valid, allowedModels: ['gpt-4o-mini', 'gpt-9'] }, 'allowedModels', "The model 'gpt-9' is not on the price list"],
    ['a fractional output limit', { ...valid, maxOutputTokensPerCall: 10.5 }, 'maxOutputTokensPerCall', 'Enter a whole number, or leave it empty for no limit'],
    ['an output limit of 0', { ...valid, maxOutputTokensPerCall: 0 }, 'maxOutputTokensPerCall', 'Minimum is 1'],
    [
      'a cache time of 1.5 seconds',
      { ...valid, responseCacheSeconds: 1.5 },
      'responseCacheSeconds',
      'Enter a whole number of seconds, or leave it empty for no cache',
    ],
    ['a cache time over a day', { ...valid, responseCacheSeconds: 86_401 }, 'responseCacheSeconds', 'Maximum is 86400'],
    ['a per-address rate of 0', { ...valid, perClientLimits: { requestsPerMinute: 0 } }, 'perClientLimits.requestsPerMinute', 'Minimum is 1'],
    [
      'a per-address rate over the maximum',
      { ...valid, perClientLimits: { requestsPerMinute: 100_001 } },
      'perClientLimits.requestsPerMinute',
      'Maximum is 100000',
    ],
    ['a per-address daily spend under a cent', { ...valid, perClientLimits: { spendPerDay: 0.001 } }, 'perClientLimits.spendPerDay', 'Minimum is 0.01'],
    [
      'a per-address daily spend as text',
      { ...valid, perClientLimits: { spendPerDay: '1' } },
      'perClientLimits.spendPerDay',
      'Enter an amount in dollars, or leave it empty for no limit',
    ],
    ['a per-end-user rate of 0', { ...valid, perEndUserLimits: { requestsPerMinute: 0 } }, 'perEndUserLimits.requestsPerMinute', 'Minimum is 1'],
    [
      'a per-end-user monthly spend over the maximum',
      { ...valid, perEndUserLimits: { spendPerMonth: 1_000_001 } },
      'perEndUserLimits.spendPerMonth',
      'Maximum is 1000000',
    ],
    [
      'a JWKS URL over plain http',
      { ...valid, endUserTokens: { issuer: 'https://id.example.com/', audience: 'app', jwksUrl: 'http://id.example.com/jwks.json' } },
      'endUserTokens.jwksUrl',
      "Enter an https URL of the provider's signing keys (JWKS)",
    ],
    [
      'end-user tokens without an audience',
      { ...valid, endUserTokens: { issuer: 'https://id.example.com/', audience: ' ', jwksUrl: 'https://id.example.com/jwks.json' } },
      'endUserTokens.audience',
      "Enter the audience (the aud of your sign-in provider's tokens)",
    ],
  ])('refuses %s with a 400 naming the field', async (_case, payload, field, message) => {
    const { cookie } = await t.users.signUp();
    const response = await call(cookie, 'POST', '/bff/publishable-keys', payload as Json);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json().errors).toContainEqual({ field, message });
    expect((await call(cookie, 'GET', '/bff/publishable-keys')).json()).toEqual({ publishableKeys: [] });
  });

  it('keeps the per-key controls an update leaves out, and changes those it names', async () => {
    const { cookie } = await t.users.signUp();
    const controls = {
      allowedModels: ['gpt-4o-mini', 'meterway-demo', 'gpt-4o-mini'],
      maxOutputTokensPerCall: 256,
      perClientLimits: { requestsPerMinute: 12, spendPerDay: 0.25 },
      responseCacheSeconds: 600,
    };
    const key = (await call(cookie, 'POST', '/bff/publishable-keys', { ...valid, ...controls })).json();
    expect(key).toMatchObject({
      allowedModels: ['gpt-4o-mini', 'meterway-demo'],
      maxOutputTokensPerCall: 256,
      perClientLimits: { requestsPerMinute: 12, spendPerDay: 0.25 },
      responseCacheSeconds: 600,
    });

    const renamed = (await call(cookie, 'PUT', `/bff/publishable-keys/${key.id}`, { ...valid, name: 'Renamed' })).json();
    expect(renamed).toEqual({ ...key, name: 'Renamed' });
    const rateOnly = (await call(cookie, 'PUT', `/bff/publishable-keys/${key.id}`, { ...valid, perClientLimits: { requestsPerMinute: 60 } })).json();
    expect(rateOnly.perClientLimits).toEqual({ requestsPerMinute: 60, spendPerDay: 0.25 });
    const lifted = (
      await call(cookie, 'PUT', `/bff/publishable-keys/${key.id}`, {
        ...valid,
        allowedModels: null,
        maxOutputTokensPerCall: null,
        perClientLimits: { requestsPerMinute: null, spendPerDay: null },
        responseCacheSeconds: null,
      })
    ).json();
    expect(lifted).toMatchObject({
      allowedModels: null,
      maxOutputTokensPerCall: null,
      perClientLimits: { requestsPerMinute: null, spendPerDay: null },
      responseCacheSeconds: null,
    });
    expect((await call(cookie, 'GET', '/bff/publishable-keys')).json().publishableKeys).toEqual([lifted]);
  });

  it('sets end-user tokens and per-end-user caps, keeps them when an update leaves them out, and clears them with null', async () => {
    const { cookie } = await t.users.signUp();
    const endUserTokens = {
      issuer: 'https://acme.eu.auth0.com/',
      audience: 'https://api.acme.example',
      jwksUrl: 'https://acme.eu.auth0.com/.well-known/jwks.json',
    };
    const key = (
      await call(cookie, 'POST', '/bff/publishable-keys', {
        ...valid,
        endUserTokens,
        perEndUserLimits: { requestsPerMinute: 10, spendPerDay: 0.5, spendPerMonth: 5 },
      })
    ).json();
    expect(key).toMatchObject({ endUserTokens, perEndUserLimits: { requestsPerMinute: 10, spendPerDay: 0.5, spendPerMonth: 5 } });
    const monthOnly = (await call(cookie, 'PUT', `/bff/publishable-keys/${key.id}`, { ...valid, perEndUserLimits: { spendPerMonth: 2 } })).json();
    expect(monthOnly).toMatchObject({ endUserTokens, perEndUserLimits: { requestsPerMinute: 10, spendPerDay: 0.5, spendPerMonth: 2 } });
    const cleared = (
      await call(cookie, 'PUT', `/bff/publishable-keys/${key.id}`, {
        ...valid,
        endUserTokens: null,
        perEndUserLimits: { requestsPerMinute: null, spendPerDay: null, spendPerMonth: null },
      })
    ).json();
    expect(cleared).toMatchObject({ endUserTokens: null, perEndUserLimits: { requestsPerMinute: null, spendPerDay: null, spendPerMonth: null } });
  });

  it("shows a key's worst case if copied today: what its budget has left this month", async () => {
    const { cookie } = await t.users.signUp();
    const { organizationId } = (await call(cookie, 'GET', '/bff/me')).json();
    await t.testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollarsToNanos(5), reference: 'cs_worst_case' }));
    const key = (await call(cookie, 'POST', '/bff/publishable-keys', { ...valid, budget: 0.5, allowedOrigins: ['https://shop.example.com'] })).json();
    expect(key.worstCaseDailySpend).toBe(0.5);
    const answered = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${key.value}`, origin: 'https://shop.example.com' },
      payload: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 },
    });
    expect(answered.statusCode).toBe(200);
    await t.app.meter.atRest();
    const [listed] = (await call(cookie, 'GET', '/bff/publishable-keys')).json().publishableKeys;
    expect(listed.currentPeriodSpendAmount).toBeGreaterThan(0);
    expect(listed.worstCaseDailySpend).toBeCloseTo(0.5 - listed.currentPeriodSpendAmount, 9);
  });

  it('blocks client addresses on a key: an IPv6 address by its /64, each once, listed and lifted; other organisations see none', async () => {
    const alice = await t.users.signUp();
    const key = (await call(alice.cookie, 'POST', '/bff/publishable-keys', valid)).json();
    const blocksUrl = `/bff/publishable-keys/${key.id}/blocks`;
    const v4 = await call(alice.cookie, 'POST', blocksUrl, { clientAddress: ' 203.0.113.7 ' });
    expect(v4.statusCode).toBe(201);
    expect(v4.json()).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), clientAddress: '203.0.113.7', createdAt: expect.any(String) });
    const v6 = (await call(alice.cookie, 'POST', blocksUrl, { clientAddress: '2001:db8:1:2:aaaa::1' })).json();
    expect(v6.clientAddress).toBe('2001:db8:1:2::/64');

    const again = await call(alice.cookie, 'POST', blocksUrl, { clientAddress: '2001:db8:1:2::99' });
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toBe('2001:db8:1:2::/64 is already blocked on this key.');
    // The /64 itself, as the callers list shows an IPv6 client, names the same client.
    expect((await call(alice.cookie, 'POST', blocksUrl, { clientAddress: '2001:db8:1:2::/64' })).statusCode).toBe(409);
    expect((await call(alice.cookie, 'POST', blocksUrl, { clientAddress: '2001:db8:1:2::/48' })).statusCode).toBe(400);
    const malformed = await call(alice.cookie, 'POST', blocksUrl, { clientAddress: '203.0.113' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().errors).toContainEqual({ field: 'clientAddress', message: 'Enter an IPv4 or IPv6 address' });
    expect((await call(alice.cookie, 'GET', blocksUrl)).json()).toEqual({ blocks: [v4.json(), v6] });

    const bob = await t.users.signUp();
    expect((await call(bob.cookie, 'GET', blocksUrl)).statusCode).toBe(404);
    expect((await call(bob.cookie, 'POST', blocksUrl, { clientAddress: '198.51.100.1' })).statusCode).toBe(404);
    expect((await call(bob.cookie, 'DELETE', `${blocksUrl}/${v6.id}`)).statusCode).toBe(404);

    expect((await call(alice.cookie, 'DELETE', `${blocksUrl}/${v6.id}`)).statusCode).toBe(204);
    expect((await call(alice.cookie, 'DELETE', `${blocksUrl}/${v6.id}`)).json()).toMatchObject({ status: 404, detail: 'Unknown block.' });
    expect((await call(alice.cookie, 'GET', blocksUrl)).json()).toEqual({ blocks: [v4.json()] });
  });

  it('blocks end users on a key: each once, listed beside addresses and lifted; a block names an address or an end user, not both', async () => {
    const { cookie } = await t.users.signUp();
    const key = (await call(cookie, 'POST', '/bff/publishable-keys', valid)).json();
    const blocksUrl = `/bff/publishable-keys/${key.id}/blocks`;
    const alice = await call(cookie, 'POST', blocksUrl, { endUser: ' auth0|alice ' });
    expect(alice.statusCode).toBe(201);
    expect(alice.json()).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), endUser: 'auth0|alice', createdAt: expect.any(String) });
    const address = (await call(cookie, 'POST', blocksUrl, { clientAddress: '203.0.113.7' })).json();

    const again = await call(cookie, 'POST', blocksUrl, { endUser: 'auth0|alice' });
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toBe('End user auth0|alice is already blocked on this key.');
    for (const payload of [{}, { clientAddress: '203.0.113.8', endUser: 'bob' }]) {
      const refused = await call(cookie, 'POST', blocksUrl, payload);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().detail).toContain('Send either a clientAddress or an endUser to block');
    }
    const tooLong = await call(cookie, 'POST', blocksUrl, { endUser: 'x'.repeat(256) });
    expect(tooLong.json().errors).toContainEqual({ field: 'endUser', message: 'Maximum length is 255' });
    expect((await call(cookie, 'GET', blocksUrl)).json()).toEqual({ blocks: [alice.json(), address] });
    expect((await call(cookie, 'DELETE', `${blocksUrl}/${alice.json().id}`)).statusCode).toBe(204);
    expect((await call(cookie, 'GET', blocksUrl)).json()).toEqual({ blocks: [address] });
  });

  it("lists a key's callers of the last 24 hours, by address and by end user, with calls, spend and whether each is blocked", async () => {
    const alice = await t.users.signUp();
    const { organizationId } = (await call(alice.cookie, 'GET', '/bff/me')).json();
    await t.testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollarsToNanos(5), reference: 'cs_callers' }));
    const key = (await call(alice.cookie, 'POST', '/bff/publishable-keys', { ...valid, allowedOrigins: ['https://shop.example.com'] })).json();
    const complete = (remoteAddress: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        remoteAddress,
        headers: { authorization: `Bearer ${key.value}`, origin: 'https://shop.example.com' },
        payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 },
      });
    for (const address of ['203.0.113.7', '203.0.113.7', '203.0.113.7', '198.51.100.4']) expect((await complete(address)).statusCode).toBe(200);
    await t.app.meter.atRest();
    // An end user's calls, and a caller older than the view's day, as settlement records them.
    const now = Date.now();
    const hour = (ago: number) => new Date(Math.floor((now - ago * 3_600_000) / 3_600_000) * 3_600_000);
    await t.testDb.db.insert(callerHours).values([
      { organizationId, publishableKeyId: key.id, hour: hour(1), kind: 'end_user', caller: 'auth0|alice', calls: 7, spentNanos: 2_000_000n },
      { organizationId, publishableKeyId: key.id, hour: hour(3), kind: 'end_user', caller: 'auth0|alice', calls: 1, spentNanos: 500_000n },
      { organizationId, publishableKeyId: key.id, hour: hour(26), kind: 'end_user', caller: 'auth0|old', calls: 100, spentNanos: 100_000_000n },
    ]);
    await call(alice.cookie, 'POST', `/bff/publishable-keys/${key.id}/blocks`, { clientAddress: '198.51.100.4' });

    const response = await call(alice.cookie, 'GET', `/bff/publishable-keys/${key.id}/callers`);
    expect(response.statusCode).toBe(200);
    const callers = response.json();
    expect(callers.clientAddresses).toEqual([
      { clientAddress: '203.0.113.7', calls: 3, spend: expect.any(Number), blocked: false },
      { clientAddress: '198.51.100.4', calls: 1, spend: expect.any(Number), blocked: true },
    ]);
    expect(callers.clientAddresses[0].spend).toBeGreaterThan(callers.clientAddresses[1].spend);
    expect(callers.endUsers).toEqual([{ endUser: 'auth0|alice', calls: 8, spend: 0.0025, blocked: false }]);
    expect(Date.parse(callers.since)).toBeLessThanOrEqual(now - 86_400_000);

    const bob = await t.users.signUp();
    expect((await call(bob.cookie, 'GET', `/bff/publishable-keys/${key.id}/callers`)).statusCode).toBe(404);
  });

  it('lists the priced models a key can be allowed, with their prices per 1M tokens', async () => {
    const { cookie } = await t.users.signUp();
    const { models, priceListVersion } = (await call(cookie, 'GET', '/bff/models')).json();
    expect(priceListVersion).toBe(priceList.version);
    // The shipped list has no margin: what is charged is what it lists.
    const mini = listedPrice('gpt-4o-mini');
    expect(models).toContainEqual({
      id: 'gpt-4o-mini',
      inputPerMillion: mini.inputPerMillion,
      cachedInputPerMillion: mini.cachedInputPerMillion,
      outputPerMillion: mini.outputPerMillion,
      maxOutputTokens: mini.maxOutputTokens,
      acceptsImages: true,
    });
    expect(models).toContainEqual(expect.objectContaining({ id: 'meterway-demo', cachedInputPerMillion: null, acceptsImages: false }));
  });

  it('refuses a malformed key id with 400', async () => {
    const { cookie } = await t.users.signUp();
    const response = await call(cookie, 'DELETE', '/bff/publishable-keys/not-a-uuid');
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([{ field: 'publishableKeyId', message: 'Unknown publishable key' }]);
  });

  it("reaches this instance's gateway at once: an edit, a roll and a delete apply to the very next call", async () => {
    const { cookie } = await t.users.signUp();
    const { organizationId } = (await call(cookie, 'GET', '/bff/me')).json();
    await t.testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'top_up', amountNanos: dollarsToNanos(5), reference: 'cs_gateway_follows' }));
    const key = (await call(cookie, 'POST', '/bff/publishable-keys', { ...valid, allowedOrigins: ['https://shop.example.com'] })).json();
    const complete = async (value: string, origin = 'https://shop.example.com') =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/v1/chat/completions',
          headers: { authorization: `Bearer ${value}`, origin },
          payload: { model: 'meterway-demo', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 },
        })
      ).statusCode;
    // Calls in a row: after the first, this instance admits the key's calls from holds it reserved ahead.
    for (let index = 0; index < 3; index++) expect(await complete(key.value)).toBe(200);

    await call(cookie, 'PUT', `/bff/publishable-keys/${key.id}`, { ...valid, allowedOrigins: ['https://new.example.com'] });
    expect(await complete(key.value)).toBe(403);
    expect(await complete(key.value, 'https://new.example.com')).toBe(200);
    expect(await complete(key.value, 'https://new.example.com')).toBe(200);
    await call(cookie, 'PUT', `/bff/publishable-keys/${key.id}`, { ...valid, budget: 0, allowedOrigins: ['https://new.example.com'] });
    expect(await complete(key.value, 'https://new.example.com')).toBe(429);
    await call(cookie, 'PUT', `/bff/publishable-keys/${key.id}`, { ...valid, allowedOrigins: ['https://new.example.com'] });
    expect(await complete(key.value, 'https://new.example.com')).toBe(200);
    expect(await complete(key.value, 'https://new.example.com')).toBe(200);

    const rolled = (await call(cookie, 'POST', `/bff/publishable-keys/${key.id}/roll`, { overlapHours: 0 })).json();
    expect(await complete(key.value, 'https://new.example.com')).toBe(401);
    expect(await complete(rolled.value, 'https://new.example.com')).toBe(200);
    expect(await complete(rolled.value, 'https://new.example.com')).toBe(200);
    expect((await call(cookie, 'DELETE', `/bff/publishable-keys/${key.id}`)).statusCode).toBe(204);
    expect(await complete(rolled.value, 'https://new.example.com')).toBe(401);
  });
});

import { eq } from 'drizzle-orm';
import { SignJWT, UnsecuredJWT } from 'jose';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { chatCompletions } from '../../db/schema/index.js';
import { addBlock, removeBlock } from '../../domain/keys/key-blocks.js';
import { stockTrustMs } from '../../domain/metering/hold-stock.js';
import { systemActor } from '../../domain/audit/record-audit.js';
import { openAiCompatible } from '../../gateway/providers/openai-compatible.js';
import { startFakeUpstream } from '../../testing/fake-upstream.js';
import { setupGateway } from '../../testing/gateway-fixture.js';
import { startIdentityProvider } from '../../testing/identity-provider.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';

// A key that requires end-user tokens from the customer's sign-in provider (a local one, over real
// HTTP), called with the official SDK as a browser app would, and by scripts that copied the key.
let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
let provider: Awaited<ReturnType<typeof startIdentityProvider>>;
beforeAll(async () => {
  [upstream, provider] = await Promise.all([startFakeUpstream(), startIdentityProvider()]);
});
afterAll(async () => Promise.all([upstream?.close(), provider?.close()]));

const t = setupGateway(() => openAiCompatible({ baseUrl: upstream.baseUrl, timeoutMs: 1500, idleTimeoutMs: 1000 }));
afterEach(async () => {
  vi.useRealTimers();
  await t.settled();
  await expectLedgerConsistent(t.testDb.db);
});

const messages = [{ role: 'user' as const, content: 'Say hello.' }];

/** The SDK as the docs show it: the publishable key, and the signed-in user's token in Meterway-User-Token (none: a script without one). */
function clientWith(key: string, token?: string) {
  return new OpenAI({
    baseURL: `${t.url}/v1`,
    apiKey: key,
    maxRetries: 0,
    defaultHeaders: { origin: 'https://app.example.com', ...(token ? { 'Meterway-User-Token': token } : {}) },
  });
}

const call = (client: OpenAI, model = 'meterway-demo') =>
  client.chat.completions.create({ model, messages, max_tokens: 4 }).then(
    () => 200,
    (error: unknown) => (error instanceof OpenAI.APIError ? error : Promise.reject(error)),
  );

const tokenKey = (controls: object = {}) => t.account({ creditDollars: 1, budgetDollars: 1, controls: { endUserTokens: provider.settings, ...controls } });

describe('keys that require end-user tokens', () => {
  it("admits a call with a valid RS256 or ES256 token, and records its sub as the call's end user", async () => {
    const account = await tokenKey();
    expect(await call(clientWith(account.value, await provider.token('alice')))).toBe(200);
    expect(await call(clientWith(account.value, await provider.token('bob', { alg: 'ES256' })))).toBe(200);
    await t.settled();
    const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.publishableKeyId, account.keyId));
    expect(rows.map((row) => row.endUser).sort()).toEqual(['alice', 'bob']);
    expect(rows.map((row) => row.clientNetwork)).toEqual(['127.0.0.0/24', '127.0.0.0/24']);
  });

  it('refuses a copied key without a token with 401, before anything reaches the provider', async () => {
    const account = await tokenKey();
    const before = upstream.requests.length;
    const refused = await call(clientWith(account.value));
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refused).toMatchObject({ status: 401, code: 'end_user_token_required' });
    expect((refused as Error).message).toContain('Meterway-User-Token');
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses expired, future, foreign, wrongly signed and unsigned tokens with 401 saying why', async () => {
    const account = await tokenKey();
    const unlisted = await provider.unlistedKey();
    const publicJwk = provider.publicJwk();
    const cases: [string, Promise<string> | string, string][] = [
      ['expired', provider.token('alice', { expiresIn: Math.floor(Date.now() / 1000) - 120 }), 'it has expired'],
      ['wrong audience', provider.token('alice', { claims: { aud: 'another-app' } }), 'it is not meant for the audience this key expects'],
      ['wrong issuer', provider.token('alice', { claims: { iss: 'https://evil.example.com/' } }), 'it was not issued by the issuer this key trusts'],
      ['unknown key id', provider.token('alice', { signWith: unlisted }), "it is signed with a key the key's JWKS URL does not list"],
      [
        'alg none',
        new UnsecuredJWT({ sub: 'alice', iss: provider.settings.issuer, aud: provider.settings.audience }).setExpirationTime('1h').encode(),
        'it is not signed with RS256 or ES256',
      ],
      [
        'HS256 with the public key as its secret',
        new SignJWT({ sub: 'alice' })
          .setProtectedHeader({ alg: 'HS256', kid: publicJwk.kid! })
          .setIssuer(provider.settings.issuer)
          .setAudience(provider.settings.audience)
          .setExpirationTime('1h')
          .sign(new TextEncoder().encode(JSON.stringify(publicJwk))),
        'it is not signed with RS256 or ES256',
      ],
      ['not a JWT', 'not-a-token', 'it is not a well-formed signed JWT'],
      // Issued an hour ahead (beyond the 30 s of clock tolerance): not valid yet, as nbf would say.
      ['issued in the future', provider.token('alice', { claims: { iat: Math.floor(Date.now() / 1000) + 3600 } }), 'it is not valid yet'],
    ];
    const before = upstream.requests.length;
    for (const [name, token, why] of cases) {
      const refused = await call(clientWith(account.value, await token));
      expect(refused, name).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(refused, name).toMatchObject({ status: 401, code: 'invalid_end_user_token', message: `401 The end-user token is not valid: ${why}.` });
    }
    expect(upstream.requests.length).toBe(before);
    await t.settled();
    expect(await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.publishableKeyId, account.keyId))).toEqual([]);
  });

  it("follows the provider's key rotation: a token signed with a new key is verified after the JWKS is fetched again", async () => {
    const account = await tokenKey();
    expect(await call(clientWith(account.value, await provider.token('alice')))).toBe(200);
    const fetched = provider.jwksFetches;
    await provider.rotate('rsa-2');
    const rotated = await provider.token('alice');
    // The JWKS is fetched again for an unknown key id at most every 30 s: within them the token is refused…
    expect(await call(clientWith(account.value, rotated))).toMatchObject({ status: 401, code: 'invalid_end_user_token' });
    // …and once they passed, accepted (only the clock moves; the provider's token is the same).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
    expect(await call(clientWith(account.value, rotated))).toBe(200);
    expect(provider.jwksFetches).toBe(fetched + 1);
    // Tokens signed with the old key, still listed, go on working without another fetch.
    expect(await call(clientWith(account.value, await provider.token('bob', { alg: 'ES256' })))).toBe(200);
    expect(provider.jwksFetches).toBe(fetched + 1);
  });

  it('caps each end user on its own: requests per minute and spend per day, whatever address it calls from', async () => {
    // meterway-demo: each call holds about 16,000 n$ and costs less; 30,000 a day is about two calls.
    const account = await tokenKey({ endUserRequestsPerMinute: 4, endUserSpendPerDayNanos: 30_000n });
    const alice = clientWith(account.value, await provider.token('alice'));
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await call(alice));
    const allowed = outcomes.filter((outcome) => outcome === 200).length;
    expect(allowed).toBeGreaterThanOrEqual(2);
    const spent = outcomes.filter((outcome) => outcome !== 200);
    expect(spent.length).toBeGreaterThanOrEqual(1);
    for (const refused of spent) {
      expect(refused).toMatchObject({
        status: 429,
        code: 'end_user_allowance_exceeded',
        message: "429 This end user has used this key's daily allowance. It resets at midnight UTC.",
      });
      expect(Number((refused as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // The fifth request in the minute is over alice's rate.
    const limited = await call(alice);
    expect(limited).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect((limited as Error).message).toMatch(/^429 Too many requests from this end user for this key\. Retry in \d+ seconds\.$/);
    // bob, from the same address, has his own caps.
    expect(await call(clientWith(account.value, await provider.token('bob')))).toBe(200);
    await t.settled();
    const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.publishableKeyId, account.keyId));
    const aliceSpent = rows.filter((row) => row.endUser === 'alice').reduce((sum, row) => sum + row.totalCostNanos!, 0n);
    expect(aliceSpent).toBeLessThanOrEqual(30_000n);
    expect(rows.filter((row) => row.endUser === 'alice')).toHaveLength(allowed);
  });

  it('refuses a blocked end user with 403 once the block is made on another instance, others go on, and lifting it lets it in again', async () => {
    // The stock's trust is counted on performance.now(): faked, the test moves it past stockTrustMs instead of waiting.
    vi.useFakeTimers({ toFake: ['performance'] });
    const account = await tokenKey();
    const viewer = { organizationId: account.organizationId, ...systemActor };
    const alice = clientWith(account.value, await provider.token('alice'));
    const bob = clientWith(account.value, await provider.token('bob'));
    for (let i = 0; i < 3; i++) expect(await call(alice)).toBe(200);

    // As another instance's console request would: straight to the database, this instance's copy of the key untouched.
    const block = await addBlock(t.testDb.db, viewer, account.keyId, { endUser: 'alice' }, new Date());
    vi.advanceTimersByTime(stockTrustMs + 20);
    const before = upstream.requests.length;
    const refused = await call(alice);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refused).toMatchObject({ status: 403, code: 'end_user_blocked', message: "403 The key's owner has blocked this end user." });
    expect(upstream.requests.length).toBe(before);
    expect(await call(bob)).toBe(200);

    await removeBlock(t.testDb.db, viewer, account.keyId, block.id, new Date());
    expect(await call(alice)).toBe(200);
  });
});

describe('keys without end-user tokens', () => {
  it('treat each client address as an anonymous end user for the per-end-user caps, and ignore a token sent anyway', async () => {
    const account = await t.account({ creditDollars: 1, budgetDollars: 1, controls: { endUserRequestsPerMinute: 2 } });
    const visitor = clientWith(account.value, 'whatever-a-script-sends');
    expect([await call(visitor), await call(visitor)]).toEqual([200, 200]);
    expect(await call(visitor)).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    await t.settled();
    const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.publishableKeyId, account.keyId));
    expect(rows.map((row) => row.endUser)).toEqual([null, null]);
  });
});

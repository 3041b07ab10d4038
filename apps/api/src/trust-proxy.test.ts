import { describe, expect, it } from 'vitest';
import { loadApiConfig } from './env.js';
import { setupTestApp } from './testing/setup-test-app.js';

/**
 * The api's per-address limit (plugins/rate-limit.ts, keyed on `request.ip` for callers who are not
 * signed in; here the sandbox's 20 card confirmations a minute) counts the socket's peer unless
 * TRUST_PROXY names the proxies (or their number) whose X-Forwarded-For decides the address.
 */
const confirmLimit = 20;
type Test = ReturnType<typeof setupTestApp>;

/** A card confirmation from `socket` with this X-Forwarded-For: 400 for its empty body once counted, 429 beyond the limit. */
const confirm = async (t: Test, socket: string, forwardedFor?: string) =>
  (
    await t.app.inject({
      method: 'POST',
      url: '/sandbox/checkout-sessions/cs_sandbox_unknown/confirm',
      remoteAddress: socket,
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
      payload: {},
    })
  ).statusCode;

async function expectKeyedOnSocket(t: Test, socket: string) {
  for (let attempt = 0; attempt < confirmLimit; attempt++) expect(await confirm(t, socket, `198.51.100.${attempt + 1}`)).toBe(400);
  expect(await confirm(t, socket, '198.51.100.99')).toBe(429);
  expect(await confirm(t, socket)).toBe(429);
}

/** Behind the trusted proxy at `proxy`, each forwarded client counts on its own, by the address the proxy appended. */
async function expectKeyedOnForwardedClient(t: Test, proxy: string) {
  for (let attempt = 0; attempt < confirmLimit; attempt++) expect(await confirm(t, proxy, `192.0.2.${attempt + 1}, 203.0.113.10`)).toBe(400);
  expect(await confirm(t, proxy, '192.0.2.99, 203.0.113.10')).toBe(429);
  expect(await confirm(t, proxy, '203.0.113.10')).toBe(429);
  expect(await confirm(t, proxy, '203.0.113.11')).toBe(400);
  expect(await confirm(t, proxy, '2001:db8::11')).toBe(400);
}

describe('TRUST_PROXY at boot', () => {
  it('is off unless set, and a bad entry stops the api naming it', () => {
    expect(loadApiConfig({}).trustProxy).toBe(false);
    expect(loadApiConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadApiConfig({ TRUST_PROXY: '10.0.0.0/8, ::1' }).trustProxy).toEqual(['10.0.0.0/8', '::1']);
    expect(() => loadApiConfig({ TRUST_PROXY: '10.0.0.0/8, 10.0.0.0/33' })).toThrow(/TRUST_PROXY: "10\.0\.0\.0\/33" is not an IP address or CIDR/);
  });
});

describe('TRUST_PROXY unset', () => {
  const t = setupTestApp();

  it('ignores X-Forwarded-For: the limit counts the socket address', async () => {
    await expectKeyedOnSocket(t, '203.0.113.1');
    expect(await confirm(t, '203.0.113.2', '198.51.100.1')).toBe(400);
  });
});

describe('TRUST_PROXY=1', () => {
  const t = setupTestApp({ TRUST_PROXY: '1' });

  it('counts the client the nearest proxy forwarded', async () => {
    await expectKeyedOnForwardedClient(t, '10.0.0.2');
  });
});

describe('TRUST_PROXY=10.0.0.0/8, 127.0.0.1', () => {
  const t = setupTestApp({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' });

  it('counts the client a listed proxy forwarded, and ignores X-Forwarded-For from a client that is not one', async () => {
    await expectKeyedOnForwardedClient(t, '127.0.0.1');
    await expectKeyedOnSocket(t, '203.0.113.3');
  });
});

import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { loadIdentityConfig } from './env.js';
import { type InjectBrowser, injectBrowser, jsonOf, logIn, outcomeOf, signUp, suiteTally } from './testing/inject-browser.js';
import { setupTestApp } from './testing/setup-test-app.js';

/**
 * The per-address limits key on `request.ip`: the socket's peer unless TRUST_PROXY names the
 * proxies (or their number) whose X-Forwarded-For decides it. A tenth of the production limits
 * keeps the runs short: 3 login attempts, 2 sign-ups and 30 new flows per address per 10 minutes.
 */
const identityUrl = 'http://127.0.0.1:4457';
const env = (trustProxy?: string) => ({
  IDENTITY_URL: identityUrl,
  CONSOLE_URL: 'http://127.0.0.1:3999',
  IDENTITY_RATE_LIMIT_MULTIPLIER: '0.1',
  ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }),
});
const loginLimit = 3;
const signUpLimit = 2;
const flowLimit = 30;
const counts = suiteTally('trust proxy');
let people = 0;
const newEmail = () => `trust-proxy-${Date.now().toString(36)}-${people++}@example.com`;

/** A sign-up refused for its password, after it was counted. */
async function refusedSignUp(browser: InjectBrowser, headers: Record<string, string>) {
  const flow = await browser.get('/self-service/registration/browser', { headers });
  const body = { method: 'password', traits: { email: newEmail() }, password: 'password', csrf_token: browser.csrf() };
  return browser.post(`/self-service/registration?flow=${jsonOf(flow).id}`, body, { headers });
}

/** Attempts from a client at `socket` (its TCP peer address) sending this X-Forwarded-For, if any. */
const from = (app: () => FastifyInstance, socket: string, forwardedFor?: string) => {
  const browser = injectBrowser(app, counts, { identityUrl, ip: socket });
  const headers: Record<string, string> = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  return {
    logIn: async () => outcomeOf(await logIn(browser, newEmail(), 'a wrong passphrase 42', { headers })),
    signUp: async () => outcomeOf(await refusedSignUp(browser, headers)),
  };
};

const refused = '429 rate_limit_exceeded';

/** The limits of one socket address trip however each attempt's X-Forwarded-For differs. */
async function expectKeyedOnSocket(app: () => FastifyInstance, socket: string) {
  for (let attempt = 0; attempt < loginLimit; attempt++) expect(await from(app, socket, `198.51.100.${attempt + 1}`).logIn()).toBe('400');
  expect(await from(app, socket, '198.51.100.99').logIn()).toBe(refused);
  expect(await from(app, socket).logIn()).toBe(refused);
  for (let attempt = 0; attempt < signUpLimit; attempt++) expect(await from(app, socket, `198.51.100.${attempt + 1}`).signUp()).toBe('400');
  expect(await from(app, socket, '198.51.100.99').signUp()).toBe(refused);
}

/**
 * Behind the trusted proxy at `proxy`, each client the proxy forwarded is counted on its own, by
 * the address the proxy appended: what the client wrote before it changes nothing.
 */
async function expectKeyedOnForwardedClient(app: () => FastifyInstance, proxy: string) {
  for (let attempt = 0; attempt < loginLimit; attempt++) expect(await from(app, proxy, `192.0.2.${attempt + 1}, 203.0.113.10`).logIn()).toBe('400');
  expect(await from(app, proxy, '192.0.2.99, 203.0.113.10').logIn()).toBe(refused);
  expect(await from(app, proxy, '203.0.113.10').logIn()).toBe(refused);
  expect(await from(app, proxy, '203.0.113.11').logIn()).toBe('400');
  expect(await from(app, proxy, '203.0.113.10, 203.0.113.12').logIn()).toBe('400');

  for (let attempt = 0; attempt < signUpLimit; attempt++) expect(await from(app, proxy, `192.0.2.${attempt + 1}, 2001:db8::10`).signUp()).toBe('400');
  expect(await from(app, proxy, '192.0.2.99, 2001:db8::10').signUp()).toBe(refused);
  // An IPv6 client counts by its /64, which one subscriber has whole: another address in it is the same client.
  expect(await from(app, proxy, '2001:db8::11').signUp()).toBe(refused);
  expect(await from(app, proxy, '2001:db8:0:1::11').signUp()).toBe('400');
}

describe('TRUST_PROXY at boot', () => {
  it('is off unless set, and a bad entry stops identity naming it', () => {
    expect(loadIdentityConfig({}).trustProxy).toBe(false);
    expect(loadIdentityConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadIdentityConfig({ TRUST_PROXY: 'fd00::/8,127.0.0.1' }).trustProxy).toEqual(['fd00::/8', '127.0.0.1']);
    expect(() => loadIdentityConfig({ TRUST_PROXY: '127.0.0.1, proxy.internal' })).toThrow(/TRUST_PROXY: "proxy\.internal" is not an IP address or CIDR/);
  });
});

describe('TRUST_PROXY unset', () => {
  const t = setupTestApp(env());

  it('ignores X-Forwarded-For: the per-address limits count the socket address', async () => {
    await expectKeyedOnSocket(() => t.app, '203.0.113.1');
    // The forwarded addresses it claimed are not blocked, and another socket address is not either.
    expect(await from(() => t.app, '203.0.113.2', '198.51.100.1').logIn()).toBe('400');
  });
});

describe('TRUST_PROXY=1', () => {
  const t = setupTestApp(env('1'));

  it('counts the client the nearest proxy forwarded', async () => {
    await expectKeyedOnForwardedClient(() => t.app, '10.0.0.2');
  });

  it('keeps failed logins for an identifier to the client that made them: its owner elsewhere signs in', async () => {
    const email = newEmail();
    const viaProxy = (client: string) => ({
      browser: injectBrowser(() => t.app, counts, { identityUrl, ip: '10.0.0.4' }),
      headers: { 'x-forwarded-for': client },
    });
    await signUp(viaProxy('192.0.2.71').browser, email);
    const attacker = viaProxy('192.0.2.70');
    for (let attempt = 0; attempt < loginLimit; attempt++)
      expect(outcomeOf(await logIn(attacker.browser, email, 'a wrong passphrase 42', { headers: attacker.headers }))).toBe('400');
    expect(outcomeOf(await logIn(attacker.browser, email, undefined, { headers: attacker.headers }))).toBe(refused);
    const elsewhere = viaProxy('192.0.2.72');
    expect(outcomeOf(await logIn(elsewhere.browser, email, undefined, { headers: elsewhere.headers }))).toBe('200');
  });

  it('limits new flows per forwarded client: 30 per 10 minutes each, whoever else the proxy forwards', async () => {
    const viaProxy = () => injectBrowser(() => t.app, counts, { identityUrl, ip: '10.0.0.3' });
    const busy = viaProxy();
    const headers = { 'x-forwarded-for': '192.0.2.50' };
    const kinds = ['login', 'registration', 'recovery', 'verification'];
    for (let flow = 0; flow < flowLimit; flow++)
      expect(outcomeOf(await busy.get(`/self-service/${kinds[flow % kinds.length]}/browser`, { headers }))).toBe('200');
    expect(outcomeOf(await busy.get('/self-service/login/browser', { headers }))).toBe(refused);
    expect(outcomeOf(await busy.get('/self-service/recovery/browser', { headers: { 'x-forwarded-for': '203.0.113.40, 192.0.2.50' } }))).toBe(refused);
    expect(outcomeOf(await viaProxy().get('/self-service/login/browser', { headers: { 'x-forwarded-for': '192.0.2.51' } }))).toBe('200');
  });
});

describe('TRUST_PROXY=10.0.0.0/8, 127.0.0.1', () => {
  const t = setupTestApp(env('10.0.0.0/8, 127.0.0.1'));

  it('counts the client a listed proxy forwarded', async () => {
    await expectKeyedOnForwardedClient(() => t.app, '127.0.0.1');
  });

  it('skips listed proxies in X-Forwarded-For, and ignores it from a client that is not one', async () => {
    for (let attempt = 0; attempt < loginLimit; attempt++)
      expect(await from(() => t.app, '127.0.0.1', `192.0.2.${attempt + 1}, 203.0.113.20, 10.1.2.3`).logIn()).toBe('400');
    expect(await from(() => t.app, '10.9.9.9', '203.0.113.20').logIn()).toBe(refused);
    await expectKeyedOnSocket(() => t.app, '203.0.113.3');
  });
});

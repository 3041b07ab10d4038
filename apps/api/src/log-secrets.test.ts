import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripeProvider } from './domain/payments/stripe-provider.js';
import { setupFakeStripe } from './testing/fake-stripe.js';
import { sharedIdentity } from './testing/identity-process.js';
import { startIdentityProvider } from './testing/identity-provider.js';
import { identityUsers } from './testing/identity-users.js';
import { setupTestApp } from './testing/setup-test-app.js';

/** Every line the api logs, as pino writes it: the options production runs with (level, serializers, redaction), writing here instead of to stdout. */
const lines: string[] = [];
const logStream = { write: (line: string) => void lines.push(line) };

/**
 * The api at its chattiest level, in the sandbox and the Stripe configuration, through what people
 * do: sign in (the session cookie on every call), create and edit a key, call the gateway with the
 * full key (streaming too, from a wrong origin, and with end-user tokens), top up in the sandbox and open the invoices,
 * pay through Stripe and receive its signed webhook, and the database going away. No session or CSRF token, key value, client
 * secret, portal token, card number, end-user token, Stripe key or webhook secret, nor the api's own secret, in
 * any line.
 */
const stripeSecretKey = 'sk_test_logSecretsNeverInTheLog0123456789';
const webhookSecret = 'whsec_logSecretsNeverInTheLog0123456789';
const apiSecret = 'api-secret-that-signs-page-and-portal-tokens-0123456789';
const appOrigin = 'https://app.example.com';

// One identity service for both apps (the worker's): started first (hooks run in order), its URL is
// in both environments before the apps are built from them.
const env: NodeJS.ProcessEnv = { LOG_LEVEL: 'trace', API_SECRET: apiSecret };
const stripeEnv: NodeJS.ProcessEnv = {
  ...env,
  STRIPE_SECRET_KEY: stripeSecretKey,
  STRIPE_WEBHOOK_SECRET: webhookSecret,
  STRIPE_PUBLISHABLE_KEY: 'pk_test_log',
};
let identityUrl = '';
let signIn: Awaited<ReturnType<typeof startIdentityProvider>> | undefined;
beforeAll(async () => {
  const [identity, provider] = await Promise.all([sharedIdentity(), startIdentityProvider()]);
  [identityUrl, signIn] = [identity.url, provider];
  env.IDENTITY_URL = identity.url;
  stripeEnv.IDENTITY_URL = identity.url;
}, 60_000);
afterAll(async () => {
  await signIn?.close();
});

const sandbox = setupTestApp(env, { logStream });
const fake = setupFakeStripe();
const stripe = setupTestApp(stripeEnv, {
  logStream,
  payments: ({ config, db }) => {
    // The configured secret key, against the fake Stripe.
    const client = new Stripe(config.stripe?.secretKey ?? '', {
      host: '127.0.0.1',
      port: fake.stripe.getApiField('port'),
      protocol: 'http',
      maxNetworkRetries: 0,
      telemetry: false,
    });
    return stripeProvider({ stripe: client, db: db.db, publishableKey: 'pk_test_log', webhookSecret: config.stripe?.webhookSecret ?? '', automaticTax: false });
  },
});

const cookieValue = (cookie: string, name: string) =>
  cookie
    .split('; ')
    .find((pair) => pair.startsWith(`${name}=`))
    ?.slice(name.length + 1) ?? '';

describe('api logs', () => {
  it('never contain a session, key value, client secret, portal token, card number, end-user token or a Stripe or api secret', async () => {
    const from = lines.length;
    const person = await identityUsers(identityUrl).signUp();
    const cookie = person.cookie;
    const secrets = new Set([stripeSecretKey, webhookSecret, apiSecret, cookieValue(cookie, 'ory_kratos_session'), '4242424242424242', '4242 4242 4242 4242']);
    for (const pair of cookie.split('; ')) secrets.add(pair.slice(pair.indexOf('=') + 1));
    const call = async (app: typeof sandbox.app, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, headers: Record<string, string> = {}) => {
      const response = await app.inject({ method, url, headers: { cookie, ...headers }, ...(payload ? { payload } : {}) });
      expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(500);
      return response;
    };

    // The console: who am I, a key created and edited.
    const app = sandbox.app;
    await call(app, 'GET', '/bff/me');
    const key = (await call(app, 'POST', '/bff/publishable-keys', { name: 'Log test', budget: 5, allowedOrigins: [appOrigin] })).json();
    secrets.add(key.value);
    await call(app, 'PUT', `/bff/publishable-keys/${key.id}`, { name: 'Log test, renamed', budget: 6, allowedOrigins: [appOrigin] });

    // A sandbox top-up as the console makes it: start, read the session, pay with the test card; then the invoices.
    const checkout = (await call(app, 'POST', '/bff/stripe/checkout-session', { amount: 10 })).json();
    secrets.add(checkout.clientSecret);
    await call(app, 'GET', `/sandbox/checkout-sessions/${checkout.checkoutSessionId}?client_secret=${encodeURIComponent(checkout.clientSecret)}`);
    expect(
      (
        await call(app, 'POST', `/sandbox/checkout-sessions/${checkout.checkoutSessionId}/confirm`, {
          clientSecret: checkout.clientSecret,
          cardNumber: '4242 4242 4242 4242',
          expiry: '12 / 40',
          cvc: '123',
        })
      ).statusCode,
    ).toBe(202);
    for (let attempt = 0; attempt < 50 && (await call(app, 'GET', '/bff/me')).json().remainingSpendAmount !== 10; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const portal = new URL((await call(app, 'POST', '/bff/stripe/customer-portal-session')).json().url);
    secrets.add(portal.searchParams.get('token') ?? '');
    expect((await call(app, 'GET', `${portal.pathname}${portal.search}`)).statusCode).toBe(200);

    // The gateway with the full key: a completion, a stream, the models, and a call from an origin the key does not allow.
    const gateway = { authorization: `Bearer ${key.value}`, origin: appOrigin };
    const body = { model: 'meterway-demo', messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 8 };
    expect((await call(app, 'POST', '/v1/chat/completions', body, gateway)).statusCode).toBe(200);
    expect((await call(app, 'POST', '/v1/chat/completions', { ...body, stream: true }, gateway)).statusCode).toBe(200);
    expect((await call(app, 'GET', '/v1/models', undefined, gateway)).statusCode).toBe(200);
    expect((await call(app, 'POST', '/v1/chat/completions', body, { ...gateway, origin: 'https://elsewhere.example' })).statusCode).toBe(403);

    // End-user tokens: a valid one, and an expired one, of the customer's sign-in provider.
    await call(app, 'PUT', `/bff/publishable-keys/${key.id}`, {
      name: 'Log test, renamed',
      budget: 6,
      allowedOrigins: [appOrigin],
      endUserTokens: signIn!.settings,
    });
    const [valid, expired] = await Promise.all([signIn!.token('log-user'), signIn!.token('log-user', { expiresIn: Math.floor(Date.now() / 1000) - 120 })]);
    secrets.add(valid).add(expired);
    expect((await call(app, 'POST', '/v1/chat/completions', body, { ...gateway, 'meterway-user-token': valid })).statusCode).toBe(200);
    expect((await call(app, 'POST', '/v1/chat/completions', body, { ...gateway, 'meterway-user-token': expired })).statusCode).toBe(401);

    // Stripe: a checkout, the buyer pays, and Stripe's signed webhook (and one with a wrong signature).
    const started = (await call(stripe.app, 'POST', '/bff/stripe/checkout-session', { amount: 12 })).json();
    secrets.add(started.clientSecret);
    fake.complete(started.checkoutSessionId);
    const payload = JSON.stringify(fake.event('checkout.session.completed', started.checkoutSessionId));
    const signature = fake.stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    const deliver = (header: string) =>
      stripe.app.inject({ method: 'POST', url: '/webhooks/stripe', headers: { 'content-type': 'application/json', 'stripe-signature': header }, payload });
    expect((await deliver(signature)).statusCode).toBe(200);
    expect((await deliver(signature.replace(/v1=\w{8}/, 'v1=00000000'))).statusCode).toBe(400);
    expect((await call(stripe.app, 'GET', '/bff/me')).json().remainingSpendAmount).toBe(12);

    // The database handle closes under the gateway (a closed pool, not a network outage, so the
    // answer is the catch-all 500): its failed queries carry the key's value as a parameter, and the
    // errors are logged; their parameters are not.
    await sandbox.testDb.handle.close();
    await app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { ...gateway, 'meterway-user-token': valid }, payload: body });
    await app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { authorization: `Bearer ${key.value}x`, origin: appOrigin }, payload: body });
    secrets.add(`${key.value}x`);

    const written = lines.slice(from);
    // The capture works and sees these requests: without it this test could not fail.
    expect(written.length).toBeGreaterThan(30);
    expect(written.some((line) => line.includes('"url":"/webhooks/stripe"'))).toBe(true);
    expect(written.some((line) => line.includes('params: [redacted]'))).toBe(true);
    expect(written.some((line) => /"url":"\/sandbox\/portal\?token=\[redacted\]"/.test(line))).toBe(true);
    expect(written.some((line) => /"url":"\/sandbox\/checkout-sessions\/cs_sandbox_\w+\?client_secret=\[redacted\]"/.test(line))).toBe(true);
    for (const line of written) JSON.parse(line);
    const leaks = written.flatMap((line) =>
      [...secrets].filter((secret) => secret.length >= 12 && line.includes(secret)).map((secret) => `${secret.slice(0, 10)}… in ${line.slice(0, 300)}`),
    );
    expect(leaks).toEqual([]);
  }, 60_000);
});

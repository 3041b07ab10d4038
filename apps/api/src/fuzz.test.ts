import { randomUUID } from 'node:crypto';
import {
  alertSettingsSchema,
  autoTopUpInputSchema,
  chatRequestSchema,
  checkoutSessionRequestSchema,
  creditGrantInputSchema,
  feedbackInputSchema,
  feedbackTypes,
  invitationInputSchema,
  keyBlockInputSchema,
  memberRoleInputSchema,
  organizationInputSchema,
  publishableKeyInputSchema,
  publishableKeyRollSchema,
  sandboxConfirmSchema,
  secretKeyInputSchema,
  secretKeyUpdateSchema,
  webhookEndpointInputSchema,
  webhookEventTypes,
} from '@meterway/contracts';
import {
  createTally,
  type EncodedBody,
  encodings,
  headerSafe,
  headerValue,
  jsonOf,
  mutationsOf,
  nastyString,
  percentEncode,
  queryString,
  runsFactor as runs,
  tableDigests,
} from '@meterway/service/testing';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPortalToken } from './domain/payments/sandbox-provider.js';
import { stripeProvider } from './domain/payments/stripe-provider.js';
import { loadSecret } from './domain/secrets/load-secret.js';
import { setupFakeStripe } from './testing/fake-stripe.js';
import { answerProblems, type Family, forgedPageToken } from './testing/fuzz.js';
import { atRest } from './testing/gateway-fixture.js';
import { expectLedgerConsistent } from './testing/ledger-invariant.js';
import { loadApiConfig } from './env.js';
import { setupTestApp } from './testing/setup-test-app.js';

/**
 * Every route of the api, sandbox and Stripe configurations both, sent thousands of malformed
 * requests as strangers and as signed-in people: no 5xx, answers in the route's error shape with
 * something to read, oversized bodies refused with 413, and not one row of the ledger, keys,
 * people, checkouts, completions or feedback changed. The rate limits are out of the way (many
 * client addresses, a high gateway limit) so the requests reach validation.
 */
const adminEmail = `fuzz-admin-${Date.now()}@example.com`;
const t = setupTestApp({ SYSTEM_ADMIN_EMAILS: adminEmail, GATEWAY_RATE_LIMIT_PER_MINUTE: '1000000' }, { identity: true });
const consoleOrigin = new URL(loadApiConfig({}).consoleUrl).origin;
const fake = setupFakeStripe();
const webhookSecret = 'whsec_fuzz_only_stripe_signs_with_this';
const stripeApp = setupTestApp(
  {},
  { payments: ({ db }) => stripeProvider({ stripe: fake.stripe, db: db.db, publishableKey: 'pk_test_fuzz', webhookSecret, automaticTax: false }) },
);

const rootLimit = 256 * 1024;
const gatewayLimit = 1024 * 1024;
const appOrigin = 'https://app.example.com';
/** Every table a malformed request could touch, except the gateway's per-minute request counts. */
const guardedTables = [
  'organizations',
  'persons',
  'publishable_keys',
  'key_spend',
  'credit_balances',
  'credit_entries',
  'checkout_sessions',
  'payment_events',
  'billing_customers',
  'reservations',
  'chat_completions',
  'feedback',
  'secrets',
  'alert_settings',
  'memberships',
  'invitations',
  'webhook_endpoints',
  'webhook_events',
  'webhook_deliveries',
];

const { tally, statuses, send, check, fuzzRoute, summary } = createTally();

type Role = 'anonymous' | 'forged' | 'revoked' | 'unverified' | 'owner' | 'other' | 'admin';
const signedIn: Role[] = ['owner', 'other', 'admin'];
const f = {} as {
  cookies: Record<Role, string>;
  key: { id: string; value: string };
  otherKey: { id: string; value: string };
  deletedKey: string;
  /** Secret keys: the owner's and the other person's gateway-scoped and admin-scoped ones, and a deleted admin key's value. */
  secretKey: { id: string; value: string };
  otherSecretKey: { id: string; value: string };
  adminKey: { id: string; value: string };
  otherAdminKey: { id: string; value: string };
  deletedAdminKey: string;
  /** The owner's and the other person's webhook endpoints. */
  webhookEndpoint: string;
  otherWebhookEndpoint: string;
  openCheckout: { id: string; clientSecret: string };
  paidCheckout: string;
  portalToken: string;
  expiredPortalToken: string;
  chatToken: string;
  personsToken: string;
  /** The owner's and the other person's ids and organisations, for the members and organisations routes. */
  personOf: { owner: string; other: string };
  organizationOf: { owner: string; other: string };
  balance: number;
  digests: Record<string, string>;
  stripeDigests: Record<string, string>;
};

const inject = async (options: InjectOptions) => {
  const response = await t.app.inject(options);
  if (response.statusCode >= 300) throw new Error(`setup ${options.method} ${options.url} answered ${response.statusCode}: ${response.body}`);
  return response.json();
};

beforeAll(async () => {
  const [owner, other, admin, unverified, leaving] = await Promise.all([
    t.users.signUp(),
    t.users.signUp(),
    t.users.signUp({ email: adminEmail }),
    t.users.signUp({ verified: false }),
    t.users.signUp(),
  ]);
  const revoked = leaving.cookie;
  const logout = await leaving.identity('GET', '/self-service/logout/browser');
  await leaving.identity('GET', `/self-service/logout?token=${logout.body.logout_token}`);
  f.cookies = { anonymous: '', forged: '', revoked, unverified: unverified.cookie, owner: owner.cookie, other: other.cookie, admin: admin.cookie };
  const keyBody = { name: 'Fuzz', budget: 10, allowedOrigins: [appOrigin] };
  const bff = (cookie: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });
  f.key = await bff(owner.cookie, 'POST', '/bff/publishable-keys', keyBody);
  f.otherKey = await bff(other.cookie, 'POST', '/bff/publishable-keys', keyBody);
  const doomed = await bff(owner.cookie, 'POST', '/bff/publishable-keys', keyBody);
  await t.app.inject({ method: 'DELETE', url: `/bff/publishable-keys/${doomed.id}`, headers: { cookie: owner.cookie } });
  f.deletedKey = doomed.value;
  const secretKeyBody = { name: 'Fuzz server', budget: 10 };
  f.secretKey = await bff(owner.cookie, 'POST', '/bff/secret-keys', secretKeyBody);
  f.otherSecretKey = await bff(other.cookie, 'POST', '/bff/secret-keys', secretKeyBody);
  f.adminKey = await bff(owner.cookie, 'POST', '/bff/secret-keys', { ...secretKeyBody, scope: 'admin' });
  f.otherAdminKey = await bff(other.cookie, 'POST', '/bff/secret-keys', { ...secretKeyBody, scope: 'admin' });
  const doomedAdmin = await bff(owner.cookie, 'POST', '/bff/secret-keys', { ...secretKeyBody, scope: 'admin' });
  await t.app.inject({ method: 'DELETE', url: `/bff/secret-keys/${doomedAdmin.id}`, headers: { cookie: owner.cookie } });
  f.deletedAdminKey = doomedAdmin.value;
  // An event the fuzzing never causes: no delivery is queued, so no worker round changes what the digests guard.
  const webhookBody = { url: 'https://hooks.example.com/fuzz', events: ['auto_top_up.failed'] };
  f.webhookEndpoint = (await bff(owner.cookie, 'POST', '/bff/webhook-endpoints', webhookBody)).id;
  f.otherWebhookEndpoint = (await bff(other.cookie, 'POST', '/bff/webhook-endpoints', webhookBody)).id;

  // Credit through a real sandbox top-up, and a second checkout left open for the confirm endpoint.
  const paid = await bff(owner.cookie, 'POST', '/bff/stripe/checkout-session', { amount: 20 });
  await inject({
    method: 'POST',
    url: `/sandbox/checkout-sessions/${paid.checkoutSessionId}/confirm`,
    payload: { clientSecret: paid.clientSecret, cardNumber: '4242424242424242', expiry: '12/40', cvc: '123' },
  });
  f.paidCheckout = paid.checkoutSessionId;
  for (let attempt = 0; attempt < 100; attempt++) {
    const me = await bff(owner.cookie, 'GET', '/bff/me');
    if (me.remainingSpendAmount === 20) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const open = await bff(owner.cookie, 'POST', '/bff/stripe/checkout-session', { amount: 5 });
  f.openCheckout = { id: open.checkoutSessionId, clientSecret: open.clientSecret };

  // Usage to list, and real page tokens to replay where they do not belong.
  for (let i = 0; i < 3; i++) {
    await inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${f.key.value}`, origin: appOrigin },
      payload: { model: 'meterway-demo', messages: [{ role: 'user', content: `hello ${i}` }], max_tokens: 5 },
    });
  }
  // Settled, and the holds the gateway reserved ahead of the key's next calls given back.
  await atRest(t.app);
  f.chatToken = (await bff(owner.cookie, 'GET', '/bff/chat-completions?limit=1')).pagination.nextPageToken;
  f.personsToken = (await bff(admin.cookie, 'GET', '/admin/persons?limit=1')).pagination.nextPageToken;
  await bff(other.cookie, 'GET', '/bff/me');
  f.portalToken = new URL((await bff(owner.cookie, 'POST', '/bff/stripe/customer-portal-session')).url).searchParams.get('token') ?? '';
  const me = await bff(owner.cookie, 'GET', '/bff/me');
  f.balance = me.remainingSpendAmount;
  const firstMember = async (cookie: string) => (await bff(cookie, 'GET', '/bff/members')).members[0].personId as string;
  f.personOf = { owner: await firstMember(owner.cookie), other: await firstMember(other.cookie) };
  f.organizationOf = { owner: me.organizationId, other: (await bff(other.cookie, 'GET', '/bff/me')).organizationId };
  f.expiredPortalToken = signPortalToken(await loadSecret(t.testDb.db, undefined), { organizationId: me.organizationId }, Date.now() - 1000);
  expect([f.chatToken, f.personsToken, f.portalToken].every(Boolean)).toBe(true);

  f.digests = await tableDigests(t.testDb.db, 'app', guardedTables);
  f.stripeDigests = await tableDigests(stripeApp.testDb.db, 'app', guardedTables);
}, 120_000);

afterAll(() => {
  // The suite's closing line (the tests fail on any violation).
  // eslint-disable-next-line no-console
  console.log(summary('api'));
});

const ip = fc.tuple(fc.integer({ min: 1, max: 254 }), fc.integer({ min: 1, max: 254 })).map(([a, b]) => `10.9.${a}.${b}`);

const forgedCookie = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9]{32}$/).map((token) => `ory_kratos_session=ory_st_${token}`),
  headerValue.map((value) => `ory_kratos_session=${value}`),
  headerValue,
  fc.constantFrom('ory_kratos_session=', 'ory_kratos_session', '=;=;', 'ory_kratos_session=a; ory_kratos_session=b'),
);

/** The Cookie header a role's browser sends, now and then with junk beside the session or a forged one before it. */
function cookieOf(role: Role): fc.Arbitrary<string | undefined> {
  if (role === 'anonymous')
    return fc.oneof(
      fc.constant(undefined),
      headerValue.map((value) => value.replace(/ory_kratos_session/gi, '')),
    );
  if (role === 'forged') return forgedCookie;
  const real = f.cookies[role];
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(real) },
    { weight: 1, arbitrary: headerValue.map((junk) => `${real}; ${junk.replace(/ory_kratos_session/gi, 'x')}`) },
    { weight: 1, arbitrary: forgedCookie.map((forged) => `${forged}; ${real}`) },
  );
}

/** The first session cookie of a Cookie header, as identity's cookie parser reads it. */
function sessionOf(cookie: string): string | undefined {
  for (const pair of cookie.split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === 'ory_kratos_session') return pair.slice(at + 1).trim();
  }
  return undefined;
}

const roles = fc.constantFrom<Role>('anonymous', 'forged', 'revoked', 'unverified', 'owner', 'owner', 'other', 'other', 'admin', 'admin');

/** Headers a browser, a proxy or an attacker may add; a repeated Origin arrives joined, as Node joins it. */
const extraHeaders = fc.record(
  {
    origin: fc.oneof(headerValue, fc.constantFrom(appOrigin, 'null', 'https://evil.example', `${appOrigin}, https://evil.example`, 'http://localhost:3000')),
    accept: fc.oneof(headerValue, fc.constantFrom('application/json', '*/*', 'text/html', 'application/problem+json;q=0')),
    'x-request-id': headerValue,
    'x-forwarded-for': fc.oneof(fc.ipV4(), headerValue),
    'user-agent': headerValue,
    'accept-language': headerValue,
  },
  { requiredKeys: [] },
);

/** `signedIn`: the request carries a verified person's session as its first session cookie. */
type Case = InjectOptions & { role?: Role; signedIn?: boolean; oversized?: boolean };

/** A request to a route: who sends it, from where, with which headers, query and body. */
function request(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: fc.Arbitrary<string>, body?: fc.Arbitrary<EncodedBody>) {
  return fc
    .record({ url, role: roles, extra: extraHeaders, remoteAddress: ip, body: body ?? fc.constant<EncodedBody>({}) })
    .chain(({ role, ...rest }) => cookieOf(role).map((cookie) => ({ role, cookie, ...rest })))
    .map(({ url: path, role, cookie, extra, remoteAddress, body: encoded }): Case => {
      const headers: Record<string, string> = { ...extra };
      if (cookie !== undefined) headers.cookie = cookie;
      if (encoded.contentType !== undefined) headers['content-type'] = encoded.contentType;
      const authenticated = signedIn.includes(role) && cookie !== undefined && sessionOf(cookie) === sessionOf(f.cookies[role]);
      return {
        method,
        url: path,
        headers,
        remoteAddress,
        role,
        signedIn: authenticated,
        ...(encoded.payload !== undefined ? { payload: encoded.payload } : {}),
        ...(encoded.oversized ? { oversized: true } : {}),
      };
    });
}

const listQuery = (tokens: fc.Arbitrary<string>) =>
  fc
    .array(
      fc.oneof(
        fc.tuple(fc.constant('limit'), fc.oneof(fc.integer({ min: -5, max: 200 }).map(String), fc.constantFrom('1e2', '0x10', '1.5', ''), nastyString)),
        fc.tuple(fc.constant('asc'), fc.oneof(fc.constantFrom('true', 'false', 'TRUE', '1', ''), nastyString)),
        fc.tuple(fc.constantFrom('nextPageToken', 'previousPageToken'), tokens),
        fc.tuple(fc.constant('searchString'), nastyString),
        fc.tuple(fc.constant('publishableKeyId'), fc.oneof(fc.uuid(), nastyString)),
        fc.tuple(nastyString, nastyString),
      ),
      { maxLength: 5 },
    )
    .map(queryString);

const anyQuery = fc.array(fc.tuple(nastyString, nastyString), { maxLength: 3 }).map(queryString);
const pageTokens = () =>
  fc.oneof(
    forgedPageToken,
    fc.constantFrom(f.chatToken, f.personsToken),
    fc.constantFrom(f.chatToken, f.personsToken).map((token) => `${token.slice(0, -2)}AA`),
  );
const pathParam = (...real: string[]) => fc.oneof(fc.uuid(), nastyString, fc.constantFrom('00000000-0000-0000-0000-000000000000', ...real)).map(percentEncode);

// Valid bodies, straight from the contracts' rules; each case mutates one and the contract decides whether it still passes.
const keyBody = fc.record({
  name: fc.string({ minLength: 3, maxLength: 100 }).filter((name) => name.trim().length >= 3),
  budget: fc.integer({ min: 0, max: 1_000_000 }),
  budgetType: fc.constant('monthly'),
  allowedOrigins: fc.array(fc.constantFrom(appOrigin, 'http://localhost:5173', 'localhost'), { maxLength: 3 }),
});
const secretKeyBody = fc.record({
  name: fc.string({ minLength: 3, maxLength: 100 }).filter((name) => name.trim().length >= 3),
  budget: fc.integer({ min: 0, max: 1_000_000 }),
  budgetType: fc.constant('monthly'),
  scope: fc.constantFrom('gateway', 'admin'),
});
const secretKeyUpdateBody = secretKeyBody.map(({ scope: _scope, ...form }) => form);
const webhookEndpointBody = fc.record({
  url: fc.constantFrom('https://hooks.example.com/meterway', 'https://example.org/hooks?x=1'),
  events: fc.uniqueArray(fc.constantFrom(...webhookEventTypes), { minLength: 1 }),
});
const feedbackBody = fc.record({
  type: fc.constantFrom(...feedbackTypes),
  description: fc.string({ minLength: 1, maxLength: 200 }).filter((text) => text.trim() !== ''),
});
const alertSettingsBody = fc.record({
  lowBalance: fc.integer({ min: 0, max: 10_000 }),
  keyBudgetPercents: fc.uniqueArray(fc.integer({ min: 1, max: 100 }), { maxLength: 10 }),
});
const autoTopUpBody = fc.record({
  enabled: fc.boolean(),
  thresholdAmount: fc.integer({ min: 1, max: 1_000 }),
  topUpAmount: fc.integer({ min: 1, max: 100 }),
  monthlyCapAmount: fc.integer({ min: 100, max: 1_000 }),
});
const roleBody = fc.record({ role: fc.constantFrom('owner', 'admin', 'developer', 'billing') });
const invitationBody = fc.record({
  email: fc
    .tuple(fc.stringMatching(/^[a-z0-9]{1,20}(?:[.+-][a-z0-9]{1,10})?$/), fc.constantFrom('example.com', 'mail.example.org'))
    .map(([local, domain]) => `${local}@${domain}`),
  role: fc.constantFrom('owner', 'admin', 'developer', 'billing'),
});
const creditGrantBody = fc.record({
  amount: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.double({ noNaN: true })),
  note: fc.string({ maxLength: 20 }),
  expiresOn: fc.oneof(fc.constant('2099-12-31'), fc.string({ maxLength: 12 })),
});
// A name, not an address: no dots, colons or @ (the contract refuses a web or e-mail address in one).
const organizationBody = fc.record({ name: fc.string({ minLength: 3, maxLength: 100 }).filter((name) => name.trim().length >= 3 && !/[.:@]/.test(name)) });
const checkoutBody = fc.record({ amount: fc.integer({ min: 100, max: 10_000 }).map((cents) => cents / 100) });
const confirmBody = () =>
  fc.record({
    clientSecret: fc.constantFrom(f.openCheckout.clientSecret, 'cs_sandbox_x_secret_y'),
    cardNumber: fc.constantFrom('4242 4242 4242 4242', '4000000000000002', '4111111111111111'),
    expiry: fc.constantFrom('12/40', '01 / 30'),
    cvc: fc.constantFrom('123', '4567'),
  });
const reversalBody = fc.record(
  { action: fc.constantFrom('refund', 'dispute', 'win', 'lose'), amount: fc.integer({ min: 1, max: 2000 }).map((cents) => cents / 100) },
  { requiredKeys: ['action'] },
);
const chatBody = fc.record(
  {
    model: fc.constantFrom('meterway-demo', 'gpt-4o-mini'),
    messages: fc.array(fc.record({ role: fc.constantFrom('system', 'user', 'assistant'), content: fc.string({ maxLength: 40 }) }), {
      minLength: 1,
      maxLength: 3,
    }),
    max_tokens: fc.integer({ min: 1, max: 20 }),
    stream: fc.boolean(),
  },
  { requiredKeys: ['model', 'messages'] },
);

const valid = (schema: { safeParse: (value: unknown) => { success: boolean } }) => (payload: string | undefined) => {
  const json = jsonOf(payload);
  return json.ok && schema.safeParse(json.value).success;
};
const bodies = (validBody: fc.Arbitrary<unknown>, limit = rootLimit) =>
  fc.oneof({ weight: 4, arbitrary: mutationsOf(validBody) }, { weight: 1, arbitrary: validBody }).chain((value) => encodings(value, limit));
/** Mutations by signed-in people must be malformed: a well-formed one would rightly change state. */
const malformedFor = (schema: Parameters<typeof valid>[0]) => (c: Case) => !(c.signedIn && valid(schema)(c.payload as string | undefined));
const ownKeyOf = (c: Case) => c.role === 'owner' && String(c.url).toLowerCase().includes(f.key.id);

const authorization = () =>
  fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(f.key.value, f.otherKey.value, f.deletedKey, `${f.key.value}x`, f.key.value.toUpperCase()).map((key) => `Bearer ${key}`),
    fc.stringMatching(/^[0-9A-Za-z]{32}$/).map((random) => `Bearer pk_live_${random}`),
    fc.constantFrom(`bearer  ${'x'.repeat(40)}`, `Basic ${Buffer.from('a:b').toString('base64')}`, 'Bearer', `Bearer ${f.key.value} extra`),
    headerValue.map((value) => `Bearer ${value}`),
  );
/** The gateway's credential: a live key in half the calls (so they get past it), and every kind of wrong one. */
const gatewayAuthorization = () =>
  fc.oneof(
    fc.constantFrom(f.key.value, f.otherKey.value).map((key) => `Bearer ${key}`),
    authorization(),
  );
/** A call that gets past the gateway's checks of who calls: a live key from its app's Origin. */
const liveGatewayCaller = (c: Case) => {
  const headers = (c.headers ?? {}) as Record<string, string>;
  const key = headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  return (key === f.key.value || key === f.otherKey.value) && headers.origin === appOrigin;
};
/** A call the gateway would rightly serve and charge: a live key with credit, its origin, a valid body for a priced model. */
const chargeable = (c: Case) => {
  const headers = (c.headers ?? {}) as Record<string, string>;
  const key = headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const json = jsonOf(c.payload as string | undefined);
  return (key === f.key.value || key === f.otherKey.value) && json.ok && chatRequestSchema.safeParse(json.value).success;
};

/** The developer API's credential: the admin keys most often (so requests reach validation), and every kind of wrong one. */
const developerAuthorization = () =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(f.adminKey.value, f.otherAdminKey.value).map((key) => `Bearer ${key}`) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(f.secretKey.value, f.deletedAdminKey, f.key.value, `${f.adminKey.value}x`, f.adminKey.value.toUpperCase())
        .map((key) => `Bearer ${key}`),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.stringMatching(/^[0-9A-Za-z]{32}$/).map((random) => `Bearer sk_live_${random}`) },
    { weight: 1, arbitrary: headerValue.map((value) => `Bearer ${value}`) },
  );
/**
 * A request to the developer API. Its callers are servers, and a request with an Origin is refused
 * before its body is read, so three in four keep no Origin: enough of them reach the body limit
 * and validation in every run (with an Origin on most, as extraHeaders has it, a CI run once
 * ended a route's 300 runs without one oversized body from a server).
 */
const developer = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: fc.Arbitrary<string>, body?: fc.Arbitrary<EncodedBody>) =>
  fc.tuple(request(method, url, body), developerAuthorization(), fc.nat(3)).map(([c, auth, fromBrowser]): Case => {
    const { origin, ...headers } = c.headers as Record<string, string>;
    const keptOrigin = fromBrowser === 0 && origin !== undefined ? { origin } : {};
    return { ...c, headers: { ...headers, ...keptOrigin, ...(auth ? { authorization: headerSafe(auth) } : {}) } };
  });
/** The request carries a live admin key: a well-formed change with it would rightly change the organisation's keys. */
const liveAdminKey = (c: Case) => {
  const key = ((c.headers ?? {}) as Record<string, string>).authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  return key === f.adminKey.value || key === f.otherAdminKey.value;
};
const daysQuery = () =>
  fc
    .array(
      fc.oneof(
        fc.tuple(fc.constant('days'), fc.oneof(fc.integer({ min: -5, max: 200 }).map(String), fc.constantFrom('1e1', '0x10', '7.5', ''), nastyString)),
        fc.tuple(fc.constant('publishableKeyId'), fc.oneof(fc.uuid(), nastyString, fc.constantFrom(f.key.id, f.otherKey.id))),
        fc.tuple(nastyString, nastyString),
      ),
      { maxLength: 3 },
    )
    .map(queryString);

type Spec = { family: Family; cases: () => fc.Arbitrary<Case>; runs: number; app?: () => FastifyInstance };

/**
 * One entry per route the app registers (a new route without one fails the first test), with the
 * requests that fuzz it and the error shape its failures must have.
 */
const specs: Record<string, Spec> = {
  'GET /healthz': {
    family: 'problem',
    runs: 80,
    cases: () =>
      request(
        'GET',
        anyQuery.map((query) => `/healthz${query}`),
      ),
  },
  'GET /metrics': {
    family: 'problem',
    runs: 40,
    cases: () =>
      request(
        'GET',
        anyQuery.map((query) => `/metrics${query}`),
      ),
  },
  'GET /openapi.json': {
    family: 'problem',
    runs: 40,
    cases: () =>
      request(
        'GET',
        anyQuery.map((query) => `/openapi.json${query}`),
      ),
  },
  'GET /docs': {
    family: 'problem',
    runs: 80,
    cases: () =>
      request(
        'GET',
        anyQuery.map((query) => `/docs${query}`),
      ),
  },
  'GET /bff/config': {
    family: 'problem',
    runs: 120,
    cases: () =>
      request(
        'GET',
        anyQuery.map((query) => `/bff/config${query}`),
      ),
  },
  'GET /v1/models': {
    family: 'openai',
    runs: 250,
    cases: () =>
      fc
        .tuple(
          request(
            'GET',
            anyQuery.map((query) => `/v1/models${query}`),
          ),
          authorization(),
        )
        .map(([c, auth]) => ({ ...c, headers: { ...(c.headers as object), ...(auth ? { authorization: headerSafe(auth) } : {}) } })),
  },
  'POST /v1/chat/completions': {
    family: 'openai',
    runs: 320,
    cases: () =>
      fc
        .tuple(
          request(
            'POST',
            anyQuery.map((query) => `/v1/chat/completions${query}`),
            bodies(chatBody, gatewayLimit),
          ),
          gatewayAuthorization(),
          fc.nat(3),
        )
        // A call is refused before its body is read unless its key is live and its Origin allowed:
        // three in four come from the key's app, so enough reach the body limit and validation.
        .map(([c, auth, from]): Case => {
          const headers = { ...(c.headers as object), ...(auth ? { authorization: headerSafe(auth) } : {}) };
          return { ...c, headers: from > 0 ? { ...headers, origin: appOrigin } : headers };
        })
        .filter((c) => !chargeable(c)),
  },
  'GET /sandbox/checkout-sessions/:checkoutSessionId': {
    family: 'problem',
    runs: 250,
    cases: () =>
      request(
        'GET',
        fc
          .tuple(
            pathParam(f.openCheckout.id, f.paidCheckout),
            fc.oneof(fc.constantFrom(f.openCheckout.clientSecret, '', `${f.openCheckout.clientSecret}x`), nastyString),
            fc.boolean(),
          )
          .map(
            ([id, secret, twice]) =>
              `/sandbox/checkout-sessions/${id}${queryString(
                twice
                  ? [
                      ['client_secret', secret],
                      ['client_secret', secret],
                    ]
                  : [['client_secret', secret]],
              )}`,
          ),
      ),
  },
  'POST /sandbox/checkout-sessions/:checkoutSessionId/confirm': {
    family: 'problem',
    runs: 300,
    cases: () =>
      request(
        'POST',
        pathParam(f.openCheckout.id, f.paidCheckout).map((id) => `/sandbox/checkout-sessions/${id}/confirm`),
        bodies(confirmBody()),
      ).filter((c) => !(String(c.url).includes(f.openCheckout.id) && valid(sandboxConfirmSchema)(c.payload as string | undefined))),
  },
  'GET /sandbox/portal': {
    family: 'problem',
    runs: 200,
    cases: () =>
      request(
        'GET',
        fc
          .oneof(
            fc.constantFrom(f.portalToken, f.expiredPortalToken, `${f.portalToken}x`, `${f.portalToken}.<script>`, f.portalToken.replace(/^./, 'A')),
            forgedPageToken,
          )
          .map((token) => `/sandbox/portal${queryString([['token', token]])}`),
      ),
  },
  'GET /sandbox/portal/receipts/:checkoutSessionId': {
    family: 'problem',
    runs: 200,
    cases: () =>
      request(
        'GET',
        fc
          .tuple(pathParam(f.paidCheckout, f.openCheckout.id), fc.oneof(fc.constantFrom(f.portalToken, f.expiredPortalToken), forgedPageToken))
          .map(([id, token]) => `/sandbox/portal/receipts/${id}${queryString([['token', token]])}`),
      ),
  },
  'GET /sandbox/portal/auto-top-up-receipts/:chargeId': {
    family: 'problem',
    runs: 200,
    cases: () =>
      request(
        'GET',
        fc
          .tuple(pathParam(), fc.oneof(fc.constantFrom(f.portalToken, f.expiredPortalToken), forgedPageToken))
          .map(([id, token]) => `/sandbox/portal/auto-top-up-receipts/${id}${queryString([['token', token]])}`),
      ),
  },
  'POST /sandbox/portal/top-ups/:checkoutSessionId/reversals': {
    family: 'problem',
    runs: 200,
    // Never the owner's live link: a well-formed press of a button with it would rightly refund the top-up.
    cases: () =>
      request(
        'POST',
        fc
          .tuple(pathParam(f.paidCheckout, f.openCheckout.id), fc.oneof(fc.constantFrom(f.expiredPortalToken, `${f.portalToken}x`), forgedPageToken))
          .map(([id, token]) => `/sandbox/portal/top-ups/${id}/reversals${queryString([['token', token]])}`),
        bodies(reversalBody),
      ),
  },
  'POST /sandbox/portal/auto-top-ups/:chargeId/reversals': {
    family: 'problem',
    runs: 100,
    cases: () =>
      request(
        'POST',
        fc
          .tuple(pathParam(), fc.oneof(fc.constantFrom(f.expiredPortalToken, `${f.portalToken}x`), forgedPageToken))
          .map(([id, token]) => `/sandbox/portal/auto-top-ups/${id}/reversals${queryString([['token', token]])}`),
        bodies(reversalBody),
      ),
  },
  'GET /bff/me': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'GET',
        anyQuery.map((query) => `/bff/me${query}`),
      ),
  },
  'GET /bff/publishable-keys': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'GET',
        listQuery(pageTokens()).map((query) => `/bff/publishable-keys${query}`),
      ),
  },
  'POST /bff/publishable-keys': {
    family: 'problem',
    runs: 300,
    cases: () =>
      request(
        'POST',
        anyQuery.map((query) => `/bff/publishable-keys${query}`),
        bodies(keyBody),
      ).filter(malformedFor(publishableKeyInputSchema)),
  },
  'PUT /bff/publishable-keys/:publishableKeyId': {
    family: 'problem',
    runs: 300,
    cases: () =>
      request(
        'PUT',
        pathParam(f.key.id, f.key.id.toUpperCase(), f.otherKey.id).map((id) => `/bff/publishable-keys/${id}`),
        bodies(keyBody),
      ).filter(malformedFor(publishableKeyInputSchema)),
  },
  'DELETE /bff/publishable-keys/:publishableKeyId': {
    family: 'problem',
    runs: 300,
    cases: () =>
      request(
        'DELETE',
        pathParam(f.key.id, f.key.id.toUpperCase(), f.otherKey.id).map((id) => `/bff/publishable-keys/${id}`),
        bodies(fc.constant({})),
      ).filter((c) => !ownKeyOf(c) && !(c.role === 'other' && String(c.url).toLowerCase().includes(f.otherKey.id))),
  },
  // Malformed bodies only: a valid roll would change the key.
  'POST /bff/publishable-keys/:publishableKeyId/roll': {
    family: 'problem',
    runs: 300,
    cases: () =>
      request(
        'POST',
        pathParam(f.key.id, f.key.id.toUpperCase(), f.otherKey.id).map((id) => `/bff/publishable-keys/${id}/roll`),
        bodies(fc.constant({ overlapHours: 1 })),
      ).filter(malformedFor(publishableKeyRollSchema)),
  },
  'GET /bff/models': {
    family: 'problem',
    runs: 100,
    cases: () =>
      request(
        'GET',
        anyQuery.map((query) => `/bff/models${query}`),
      ),
  },
  'GET /bff/publishable-keys/:publishableKeyId/callers': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'GET',
        pathParam(f.key.id, f.key.id.toUpperCase(), f.otherKey.id).map((id) => `/bff/publishable-keys/${id}/callers`),
      ),
  },
  'GET /bff/publishable-keys/:publishableKeyId/blocks': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'GET',
        pathParam(f.key.id, f.key.id.toUpperCase(), f.otherKey.id).map((id) => `/bff/publishable-keys/${id}/blocks`),
      ),
  },
  // Malformed bodies only: a valid one would block an address.
  'POST /bff/publishable-keys/:publishableKeyId/blocks': {
    family: 'problem',
    runs: 300,
    cases: () =>
      request(
        'POST',
        pathParam(f.key.id, f.key.id.toUpperCase(), f.otherKey.id).map((id) => `/bff/publishable-keys/${id}/blocks`),
        bodies(fc.constant({ clientAddress: '198.51.100.9' })),
      ).filter(malformedFor(keyBlockInputSchema)),
  },
  'DELETE /bff/publishable-keys/:publishableKeyId/blocks/:blockId': {
    family: 'problem',
    runs: 200,
    cases: () =>
      request(
        'DELETE',
        fc.tuple(pathParam(f.key.id, f.otherKey.id), pathParam(randomUUID())).map(([id, block]) => `/bff/publishable-keys/${id}/blocks/${block}`),
        bodies(fc.constant({})),
      ),
  },
  'GET /bff/secret-keys': {
    family: 'problem',
    runs: 100,
    cases: () =>
      request(
        'GET',
        listQuery(pageTokens()).map((query) => `/bff/secret-keys${query}`),
      ),
  },
  // Malformed bodies only: a valid one would create a key.
  'POST /bff/secret-keys': {
    family: 'problem',
    runs: 250,
    cases: () =>
      request(
        'POST',
        anyQuery.map((query) => `/bff/secret-keys${query}`),
        bodies(secretKeyBody),
      ).filter(malformedFor(secretKeyInputSchema)),
  },
  'PUT /bff/secret-keys/:secretKeyId': {
    family: 'problem',
    runs: 250,
    cases: () =>
      request(
        'PUT',
        pathParam(f.secretKey.id, f.secretKey.id.toUpperCase(), f.otherSecretKey.id).map((id) => `/bff/secret-keys/${id}`),
        bodies(secretKeyUpdateBody),
      ).filter(malformedFor(secretKeyUpdateSchema)),
  },
  'POST /bff/secret-keys/:secretKeyId/roll': {
    family: 'problem',
    runs: 200,
    cases: () =>
      request(
        'POST',
        pathParam(f.secretKey.id, f.otherSecretKey.id).map((id) => `/bff/secret-keys/${id}/roll`),
        bodies(fc.constant({ overlapHours: 1 })),
      ).filter(malformedFor(publishableKeyRollSchema)),
  },
  'DELETE /bff/secret-keys/:secretKeyId': {
    family: 'problem',
    runs: 200,
    cases: () =>
      request(
        'DELETE',
        pathParam(f.secretKey.id, f.adminKey.id, f.otherSecretKey.id).map((id) => `/bff/secret-keys/${id}`),
        bodies(fc.constant({})),
      ).filter((c) => {
        const url = String(c.url).toLowerCase();
        const ownKey = [f.secretKey.id, f.adminKey.id].some((id) => url.includes(id));
        return !(c.role === 'owner' && ownKey) && !(c.role === 'other' && url.includes(f.otherSecretKey.id));
      }),
  },
  'GET /bff/webhook-endpoints': {
    family: 'problem',
    runs: 100,
    cases: () =>
      request(
        'GET',
        anyQuery.map((query) => `/bff/webhook-endpoints${query}`),
      ),
  },
  // Malformed bodies only: a valid one would register an endpoint.
  'POST /bff/webhook-endpoints': {
    family: 'problem',
    runs: 250,
    cases: () =>
      request(
        'POST',
        anyQuery.map((query) => `/bff/webhook-endpoints${query}`),
        bodies(webhookEndpointBody),
      ).filter(malformedFor(webhookEndpointInputSchema)),
  },
  'GET /bff/webhook-endpoints/:webhookEndpointId/deliveries': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'GET',
        pathParam(f.webhookEndpoint, f.otherWebhookEndpoint).map((id) => `/bff/webhook-endpoints/${id}/deliveries`),
      ),
  },
  // Never the caller's own endpoint: deleting it would change what the digests guard.
  'DELETE /bff/webhook-endpoints/:webhookEndpointId': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'DELETE',
        pathParam(f.webhookEndpoint, f.otherWebhookEndpoint).map((id) => `/bff/webhook-endpoints/${id}`),
        bodies(fc.constant({})),
      ).filter((c) => {
        const url = String(c.url).toLowerCase();
        return !(c.role === 'owner' && url.includes(f.webhookEndpoint)) && !(c.role === 'other' && url.includes(f.otherWebhookEndpoint));
      }),
  },
  'GET /v1/organization/balance': {
    family: 'openai',
    runs: 150,
    cases: () =>
      developer(
        'GET',
        anyQuery.map((query) => `/v1/organization/balance${query}`),
      ),
  },
  'GET /v1/organization/credit-history': {
    family: 'openai',
    runs: 200,
    cases: () =>
      developer(
        'GET',
        listQuery(pageTokens()).map((query) => `/v1/organization/credit-history${query}`),
      ),
  },
  'GET /v1/organization/usage': {
    family: 'openai',
    runs: 250,
    cases: () =>
      developer(
        'GET',
        listQuery(pageTokens()).map((query) => `/v1/organization/usage${query}`),
      ),
  },
  'GET /v1/organization/usage/daily': {
    family: 'openai',
    runs: 150,
    cases: () =>
      developer(
        'GET',
        daysQuery().map((query) => `/v1/organization/usage/daily${query}`),
      ),
  },
  'GET /v1/organization/publishable-keys': {
    family: 'openai',
    runs: 150,
    cases: () =>
      developer(
        'GET',
        anyQuery.map((query) => `/v1/organization/publishable-keys${query}`),
      ),
  },
  // Malformed bodies only with a live admin key: a valid one would create a key.
  'POST /v1/organization/publishable-keys': {
    family: 'openai',
    runs: 300,
    cases: () =>
      developer(
        'POST',
        anyQuery.map((query) => `/v1/organization/publishable-keys${query}`),
        bodies(keyBody),
      ).filter((c) => !(liveAdminKey(c) && valid(publishableKeyInputSchema)(c.payload as string | undefined))),
  },
  'PUT /v1/organization/publishable-keys/:publishableKeyId': {
    family: 'openai',
    runs: 300,
    cases: () =>
      developer(
        'PUT',
        pathParam(f.key.id, f.key.id.toUpperCase(), f.otherKey.id).map((id) => `/v1/organization/publishable-keys/${id}`),
        bodies(keyBody),
      ).filter((c) => !(liveAdminKey(c) && valid(publishableKeyInputSchema)(c.payload as string | undefined))),
  },
  // Never a live admin key on its own organisation's key: that delete would rightly happen.
  'DELETE /v1/organization/publishable-keys/:publishableKeyId': {
    family: 'openai',
    runs: 200,
    cases: () =>
      developer(
        'DELETE',
        pathParam(f.key.id, f.otherKey.id).map((id) => `/v1/organization/publishable-keys/${id}`),
        bodies(fc.constant({})),
      ).filter((c) => !(liveAdminKey(c) && [f.key.id, f.otherKey.id].some((id) => String(c.url).toLowerCase().includes(id)))),
  },
  'POST /bff/stripe/checkout-session': {
    family: 'problem',
    runs: 300,
    cases: () =>
      request(
        'POST',
        anyQuery.map((query) => `/bff/stripe/checkout-session${query}`),
        bodies(checkoutBody),
      ).filter(malformedFor(checkoutSessionRequestSchema)),
  },
  'POST /bff/stripe/customer-portal-session': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'POST',
        anyQuery.map((query) => `/bff/stripe/customer-portal-session${query}`),
        bodies(fc.constant({})),
      ),
  },
  'GET /bff/chat-completions': {
    family: 'problem',
    runs: 300,
    cases: () =>
      request(
        'GET',
        listQuery(pageTokens()).map((query) => `/bff/chat-completions${query}`),
      ),
  },
  'GET /bff/usage/daily': {
    family: 'problem',
    runs: 200,
    cases: () =>
      request(
        'GET',
        anyQuery.map((query) => `/bff/usage/daily${query}`),
      ),
  },
  'GET /bff/chat-completions/export': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'GET',
        listQuery(pageTokens()).map((query) => `/bff/chat-completions/export${query}`),
      ),
  },
  'POST /bff/feedback': {
    family: 'problem',
    runs: 300,
    cases: () =>
      request(
        'POST',
        anyQuery.map((query) => `/bff/feedback${query}`),
        bodies(feedbackBody),
      ).filter(malformedFor(feedbackInputSchema)),
  },
  'GET /bff/alert-settings': {
    family: 'problem',
    runs: 100,
    cases: () =>
      request(
        'GET',
        anyQuery.map((query) => `/bff/alert-settings${query}`),
      ),
  },
  'PUT /bff/alert-settings': {
    family: 'problem',
    runs: 300,
    cases: () =>
      request(
        'PUT',
        anyQuery.map((query) => `/bff/alert-settings${query}`),
        bodies(alertSettingsBody),
      ).filter(malformedFor(alertSettingsSchema)),
  },
  'GET /bff/auto-top-up': {
    family: 'problem',
    runs: 100,
    cases: () =>
      request(
        'GET',
        anyQuery.map((query) => `/bff/auto-top-up${query}`),
      ),
  },
  'PUT /bff/auto-top-up': {
    family: 'problem',
    runs: 300,
    cases: () =>
      request(
        'PUT',
        anyQuery.map((query) => `/bff/auto-top-up${query}`),
        bodies(autoTopUpBody),
      ).filter(malformedFor(autoTopUpInputSchema)),
  },
  // It takes no body: a signed-in person's request that reached it would rightly open a setup session.
  'POST /bff/auto-top-up/payment-method': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'POST',
        anyQuery.map((query) => `/bff/auto-top-up/payment-method${query}`),
        bodies(fc.constant({})),
      ).filter((c) => !c.signedIn || c.oversized === true),
  },
  'GET /bff/audit-log': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'GET',
        listQuery(pageTokens()).map((query) => `/bff/audit-log${query}`),
      ),
  },
  'GET /bff/audit-log/export': {
    family: 'problem',
    runs: 100,
    cases: () =>
      request(
        'GET',
        listQuery(pageTokens()).map((query) => `/bff/audit-log/export${query}`),
      ),
  },
  'GET /bff/checkout-sessions/:checkoutSessionId': {
    family: 'problem',
    runs: 100,
    cases: () =>
      request(
        'GET',
        pathParam(f.paidCheckout, f.openCheckout.id).map((id) => `/bff/checkout-sessions/${id}`),
      ),
  },
  'GET /bff/credit-history': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'GET',
        listQuery(pageTokens()).map((query) => `/bff/credit-history${query}`),
      ),
  },
  'GET /bff/credit-history/export': {
    family: 'problem',
    runs: 100,
    cases: () =>
      request(
        'GET',
        listQuery(pageTokens()).map((query) => `/bff/credit-history/export${query}`),
      ),
  },
  'GET /bff/members': {
    family: 'problem',
    runs: 100,
    cases: () =>
      request(
        'GET',
        anyQuery.map((query) => `/bff/members${query}`),
      ),
  },
  // Each is the only owner of their organisation (409, or the same role again) and a stranger to the other's (404): nothing changes.
  'PUT /bff/members/:personId': {
    family: 'problem',
    runs: 250,
    cases: () =>
      request(
        'PUT',
        pathParam(f.personOf.owner, f.personOf.other).map((id) => `/bff/members/${id}`),
        bodies(roleBody),
      ),
  },
  // Each is the only owner of their organisation (409) and a stranger to the other's (404): nothing is removed.
  'DELETE /bff/members/:personId': {
    family: 'problem',
    runs: 200,
    cases: () =>
      request(
        'DELETE',
        pathParam(f.personOf.owner, f.personOf.other).map((id) => `/bff/members/${id}`),
        bodies(fc.constant({})),
      ),
  },
  // Malformed bodies only: a valid one would invite the address.
  'POST /bff/invitations': {
    family: 'problem',
    runs: 300,
    cases: () =>
      request(
        'POST',
        anyQuery.map((query) => `/bff/invitations${query}`),
        bodies(invitationBody),
      ).filter(malformedFor(invitationInputSchema)),
  },
  'DELETE /bff/invitations/:invitationId': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'DELETE',
        pathParam().map((id) => `/bff/invitations/${id}`),
        bodies(fc.constant({})),
      ),
  },
  'POST /bff/invitations/:invitationId/resend': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'POST',
        pathParam().map((id) => `/bff/invitations/${id}/resend`),
        bodies(fc.constant({})),
      ),
  },
  // No link was ever mailed here: every token, well-formed (`<organization id>.<secret>`) or not, opens nothing.
  'POST /bff/invitations/accept': {
    family: 'problem',
    runs: 200,
    cases: () =>
      request(
        'POST',
        anyQuery.map((query) => `/bff/invitations/accept${query}`),
        bodies(
          fc.record({
            token: fc.oneof(
              fc
                .tuple(
                  fc.oneof(fc.uuid(), fc.constantFrom(f.organizationOf.owner, f.organizationOf.other), nastyString),
                  fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{43}$/), nastyString),
                )
                .map(([organization, secret]) => `${organization}.${secret}`),
              fc.stringMatching(/^[A-Za-z0-9_-]{43}$/),
              nastyString,
            ),
          }),
        ),
      ),
  },
  // Switching to one's own current organisation changes nothing; to the other's is 404.
  'PUT /bff/current-organization': {
    family: 'problem',
    runs: 200,
    cases: () =>
      request(
        'PUT',
        anyQuery.map((query) => `/bff/current-organization${query}`),
        bodies(fc.record({ organizationId: fc.oneof(fc.uuid(), fc.constantFrom(f.organizationOf.owner, f.organizationOf.other)) })),
      ),
  },
  // Malformed bodies only: a valid one would create an organisation.
  'POST /bff/organizations': {
    family: 'problem',
    runs: 250,
    cases: () =>
      request(
        'POST',
        anyQuery.map((query) => `/bff/organizations${query}`),
        bodies(organizationBody),
      ).filter(malformedFor(organizationInputSchema)),
  },
  // Each is the last owner of their own organisation (409) and no member of the other's (404).
  'POST /bff/organizations/:organizationId/leave': {
    family: 'problem',
    runs: 150,
    cases: () =>
      request(
        'POST',
        pathParam(f.organizationOf.owner, f.organizationOf.other).map((id) => `/bff/organizations/${id}/leave`),
        bodies(fc.constant({})),
      ),
  },
  'GET /dev/outbox': {
    family: 'problem',
    runs: 80,
    cases: () =>
      request(
        'GET',
        anyQuery.map((query) => `/dev/outbox${query}`),
      ),
  },
  'GET /admin/persons': {
    family: 'problem',
    runs: 200,
    cases: () =>
      request(
        'GET',
        listQuery(pageTokens()).map((query) => `/admin/persons${query}`),
      ),
  },
  'GET /admin/feedback': {
    family: 'problem',
    runs: 200,
    cases: () =>
      request(
        'GET',
        listQuery(pageTokens()).map((query) => `/admin/feedback${query}`),
      ),
  },
  // Malformed bodies only: a valid one would grant credit.
  'POST /admin/persons/:personId/credit-grants': {
    family: 'problem',
    runs: 300,
    cases: () =>
      request(
        'POST',
        pathParam(f.personOf.owner, f.personOf.other).map((id) => `/admin/persons/${id}/credit-grants`),
        bodies(creditGrantBody),
      ).filter(malformedFor(creditGrantInputSchema)),
  },
  'POST /webhooks/stripe': {
    family: 'problem',
    runs: 250,
    app: () => stripeApp.app,
    cases: () => {
      const event = fc.record({
        id: fc.oneof(fc.stringMatching(/^evt_[A-Za-z0-9]{24}$/), nastyString),
        object: fc.constant('event'),
        type: fc.oneof(fc.constantFrom('checkout.session.completed', 'checkout.session.expired', 'invoice.paid'), nastyString),
        data: fc.record({
          object: fc.record({ id: fc.oneof(fc.stringMatching(/^cs_test_[A-Za-z0-9]{20}$/), nastyString), object: fc.constant('checkout.session') }),
        }),
      });
      const now = Math.floor(Date.now() / 1000);
      // Only Stripe holds the endpoint secret: a correct, fresh signature is the one thing never sent here.
      const signature = (payload: string) =>
        fc.oneof(
          fc.constant(undefined),
          headerValue,
          fc.stringMatching(/^[0-9a-f]{64}$/).map((hex) => `t=${now},v1=${hex}`),
          fc.constant(fake.stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someone_else' })),
          fc.constant(fake.stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret, timestamp: now - 3600 })),
          fc.constant(fake.stripe.webhooks.generateTestHeaderString({ payload: `${payload} `, secret: webhookSecret })),
          fc.constant(`t=${now},v1=${'0'.repeat(64)}, t=${now},v1=${'1'.repeat(64)}`),
        );
      return request(
        'POST',
        anyQuery.map((query) => `/webhooks/stripe${query}`),
        bodies(event),
      ).chain((c) =>
        signature(String(c.payload ?? '')).map((sig): Case => ({
          ...c,
          headers: { ...(c.headers as object), ...(sig ? { 'stripe-signature': headerSafe(sig) } : {}) },
        })),
      );
    },
  },
};

/** Whether a request names the console's origin (the test app adds it when a case names none, as the console's browser would). */
const fromTheConsole = (c: Case) => {
  const origin = (c.headers as Record<string, string> | undefined)?.origin;
  return origin === undefined || origin === consoleOrigin;
};

/** What an oversized body must get: 413, unless the URL (400, 414) or the caller (401, 403) is refused before the body is read. */
function oversizedAnswered(c: Case, response: { statusCode: number; body: string }) {
  const status = response.statusCode;
  if (status === 414 || (status === 400 && response.body.includes('is not a valid url component'))) return true;
  // The console's routes (the BFF's and the admin area's) refuse a change from another site, then
  // authenticate, before reading the body.
  if (/^\/(bff|admin)\//.test(String(c.url)) && c.method !== 'GET' && !fromTheConsole(c)) return status === 403;
  if (/^\/(bff|admin)\//.test(String(c.url)) && !c.signedIn) return status === 401;
  // The developer API authenticates its key (and refuses a browser's Origin) before reading the body.
  if (String(c.url).startsWith('/v1/organization')) {
    const fromServer = liveAdminKey(c) && (c.headers as Record<string, string> | undefined)?.origin === undefined;
    if (!fromServer) return status === 401 || status === 403;
  }
  // The gateway checks the key, the Origin and the caller's rates before reading the body.
  if (String(c.url).startsWith('/v1/chat/completions') && !liveGatewayCaller(c)) return status === 401 || status === 403 || status === 429;
  // The admin area refuses whoever is not a system admin before reading the body.
  if (String(c.url).startsWith('/admin/') && c.role !== 'admin') return status === 403;
  return status === 413 || status === 429;
}

const fuzz = (route: string, spec: Spec) =>
  fuzzRoute({
    app: spec.app?.() ?? t.app,
    route,
    cases: spec.cases(),
    numRuns: spec.runs * runs,
    request: ({ role, signedIn: _signedIn, oversized: _oversized, ...options }) => ({ options, who: String(role) }),
    problems: (c, response) => [
      ...answerProblems(spec.family, response),
      ...(c.oversized && !oversizedAnswered(c, response) ? [`an oversized body answered ${response.statusCode}`] : []),
    ],
  });

describe('api fuzzing', () => {
  it('has a fuzz spec for every route of both payment configurations', () => {
    const registered = [...t.app.routeTable, ...stripeApp.app.routeTable].map((route) => `${route.method} ${route.url}`);
    expect([...new Set(registered)].sort()).toEqual(Object.keys(specs).sort());
  });

  it('starts its mutations from bodies the contracts accept', () => {
    const accepted = <T>(schema: { safeParse: (value: unknown) => { success: boolean } }, body: fc.Arbitrary<T>) =>
      fc.assert(
        fc.property(body, (value) => schema.safeParse(value).success),
        { numRuns: 100 },
      );
    accepted(publishableKeyInputSchema, keyBody);
    accepted(secretKeyInputSchema, secretKeyBody);
    accepted(secretKeyUpdateSchema, secretKeyUpdateBody);
    accepted(feedbackInputSchema, feedbackBody);
    accepted(alertSettingsSchema, alertSettingsBody);
    accepted(autoTopUpInputSchema, autoTopUpBody);
    accepted(checkoutSessionRequestSchema, checkoutBody);
    accepted(sandboxConfirmSchema, confirmBody());
    accepted(chatRequestSchema, chatBody);
    accepted(memberRoleInputSchema, roleBody);
    accepted(invitationInputSchema, invitationBody);
    accepted(organizationInputSchema, organizationBody);
  });

  for (const [route, spec] of Object.entries(specs)) {
    it(`${route}: ${spec.runs * runs} malformed requests, no 5xx, clear 4xx, nothing changed`, async () => {
      const before = tally.violations.length;
      await fuzz(route, spec);
      const [db, digests] = spec.app ? [stripeApp.testDb.db, f.stripeDigests] : [t.testDb.db, f.digests];
      const after = await tableDigests(db, 'app', guardedTables);
      for (const table of guardedTables) check(after[table] === digests[table], () => `${route} changed app.${table}`);
      const found = tally.violations.slice(before);
      expect(found, found.slice(0, 2).concat(found.slice(-2)).join('\n')).toHaveLength(0);
    }, 120_000);
  }

  it('still serves the owner afterwards, with the ledger consistent and the credit untouched', async () => {
    // The answers show the requests got past each gate: body limits, authentication, validation.
    for (const route of Object.keys(specs).filter((name) => /^(POST|PUT|DELETE) /.test(name)))
      expect(statuses.get(route), `${route} never answered 413`).toContain(413);
    for (const route of [
      'POST /bff/publishable-keys',
      'PUT /bff/publishable-keys/:publishableKeyId',
      'POST /bff/stripe/checkout-session',
      'POST /bff/feedback',
      'GET /bff/chat-completions',
      'GET /admin/persons',
      'POST /bff/secret-keys',
    ]) {
      expect(statuses.get(route), `${route} never got to validation as a signed-in person`).toEqual(expect.arrayContaining([400, 401]));
    }
    expect(statuses.get('GET /admin/persons')).toEqual(expect.arrayContaining([200, 403]));
    expect(statuses.get('POST /v1/chat/completions')).toEqual(expect.arrayContaining([400, 401, 403, 413, 415]));
    // The developer API: past its key check to validation, and refusing every wrong key; a plain
    // request with the admin key still works (random queries seldom make a valid one).
    for (const route of ['GET /v1/organization/usage', 'GET /v1/organization/usage/daily', 'POST /v1/organization/publishable-keys'])
      expect(statuses.get(route), route).toEqual(expect.arrayContaining([400, 401, 403]));
    for (const url of ['/v1/organization/usage', '/v1/organization/usage/daily']) {
      const answer = await send(t.app, { method: 'GET', url, headers: { authorization: `Bearer ${f.adminKey.value}` } });
      expect(answer?.statusCode, url).toBe(200);
    }
    await expectLedgerConsistent(t.testDb.db);
    const health = await send(t.app, { method: 'GET', url: '/healthz' });
    check(health?.statusCode === 200, () => `healthz answered ${health?.statusCode} after the fuzzing`);
    const me = await send(t.app, { method: 'GET', url: '/bff/me', headers: { cookie: f.cookies.owner } });
    expect(check(me?.json().remainingSpendAmount === f.balance, () => `the owner's credit moved from ${f.balance} to ${me?.json().remainingSpendAmount}`)).toBe(
      true,
    );
    expect(tally.requests).toBeGreaterThanOrEqual(Object.values(specs).reduce((sum, spec) => sum + spec.runs * runs, 0));
  });
});

/** What the fuzzing found, pinned as plain cases (each answered 500, or outside the route's error shape, before its fix). */
describe('api regressions found by fuzzing', () => {
  const expectProblem = (response: { statusCode: number; headers: Record<string, unknown>; json: () => any }, status: number) => {
    expect(response.statusCode).toBe(status);
    expect(String(response.headers['content-type'])).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status, detail: expect.stringMatching(/\S/) });
  };

  it('refuses a key name or a feedback text with a NUL character with a 400, and stores nothing', async () => {
    // A person of their own: the fuzzing above used up the others' mutation rate limits.
    const { cookie } = await t.users.signUp();
    await t.app.inject({ method: 'GET', url: '/bff/me', headers: { cookie } });
    const before = await tableDigests(t.testDb.db, 'app', ['publishable_keys', 'feedback']);
    const key = await t.app.inject({
      method: 'POST',
      url: '/bff/publishable-keys',
      headers: { cookie },
      payload: { name: 'a\u0000b', budget: 1, allowedOrigins: [] },
    });
    expectProblem(key, 400);
    expect(key.json().detail).toMatch(/NUL/);
    expectProblem(await t.app.inject({ method: 'POST', url: '/bff/feedback', headers: { cookie }, payload: { type: 'bug', description: 'x\ud800y' } }), 400);
    expect(await tableDigests(t.testDb.db, 'app', ['publishable_keys', 'feedback'])).toEqual(before);
  });

  it('refuses a sandbox checkout id with a NUL character with a 400', async () => {
    expectProblem(await t.app.inject({ method: 'GET', url: '/sandbox/checkout-sessions/%00?client_secret=x' }), 400);
    expectProblem(
      await t.app.inject({
        method: 'POST',
        url: '/sandbox/checkout-sessions/%00/confirm',
        payload: { clientSecret: 'x', cardNumber: '4242424242424242', expiry: '12/40', cvc: '123' },
      }),
      400,
    );
  });

  it('answers a broken %-escape in the path and an over-long path parameter as problems, and in OpenAI shape under /v1', async () => {
    expectProblem(await t.app.inject({ method: 'DELETE', url: '/bff/publishable-keys/%ED%A0%80' }), 400);
    expectProblem(await t.app.inject({ method: 'GET', url: `/sandbox/portal/receipts/${'A'.repeat(200)}?token=x` }), 414);
    const gateway = await t.app.inject({ method: 'GET', url: '/v1/%ED%A0%80' });
    expect(gateway.statusCode).toBe(400);
    expect(gateway.json()).toEqual({
      error: { message: expect.stringMatching(/not a valid url/), type: 'invalid_request_error', code: 'invalid_request', param: null },
    });
  });
});

import { randomUUID } from 'node:crypto';
import { can, canMakeAdminKey, type Permission, type Role as TeamRole } from '@meterway/contracts';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { memberships, organizations, persons } from './db/schema/index.js';
import { settleSandbox } from './domain/payments/sandbox-checkout.js';
import { stripeProvider } from './domain/payments/stripe-provider.js';
import { setupFakeStripe } from './testing/fake-stripe.js';
import { setupTestApp } from './testing/setup-test-app.js';
import { teamsOf } from './testing/teams.js';

const adminEmail = `matrix-admin-${Date.now()}@example.com`;
const t = setupTestApp({ SYSTEM_ADMIN_EMAILS: adminEmail }, { identity: true });
// The Stripe webhook exists only when Stripe takes the payments: a second app, configured so, names it.
const webhookSecret = 'whsec_matrix_webhooks';
const fake = setupFakeStripe();
const stripeApp = setupTestApp(
  {},
  { payments: ({ db }) => stripeProvider({ stripe: fake.stripe, db: db.db, publishableKey: 'pk_test_matrix', webhookSecret, automaticTax: false }) },
);

type Role = 'anonymous' | 'unverified' | 'userB' | 'admin' | 'userA';
/** Roles run in this order, so the owner's destructive call (DELETE) comes last. */
const roles: Role[] = ['anonymous', 'unverified', 'userB', 'admin', 'userA'];
/** `body` may be read when the row runs (ids made in beforeAll); `after` runs once every caller has been tried. */
type Case = {
  url: () => string;
  body?: unknown;
  headers?: Record<string, string>;
  app?: 'stripe';
  expect: Record<Role, number>;
  after?: () => Promise<void>;
};

const everyone = (status: number) => ({ anonymous: status, unverified: status, userB: status, admin: status, userA: status });
const signedIn = (status: number) => ({ anonymous: 401, unverified: 401, userB: status, admin: status, userA: status });
const ownerOnly = (status: number) => ({ anonymous: 401, unverified: 401, userB: 404, admin: 404, userA: status });
const adminOnly = { anonymous: 401, unverified: 401, userB: 403, admin: 200, userA: 403 };
const keyOrigin = 'https://matrix.example.com';
const keyBody = { name: 'Matrix', budget: 5, budgetType: 'monthly', allowedOrigins: [keyOrigin] };
const chatBody = { model: 'meterway-demo', messages: [{ role: 'user', content: 'Hello from the matrix.' }] };
const secretKeyBody = { name: 'Matrix server', budget: 5, budgetType: 'monthly' };
const adminKeyBody = { ...secretKeyBody, name: 'Matrix admin', scope: 'admin' };
const webhookBody = { url: 'https://hooks.example.com/meterway', events: ['credit.added'] };

type Checkout = { checkoutSessionId: string; clientSecret: string };
/** What the rows aim at: user A's keys, checkout sessions and invoices link, and B's for contrast. */
const f = {} as {
  keyOfA: string;
  blockOfA: string;
  gatewayKeyOfA: { id: string; value: string };
  deletedKeyOfA: string;
  keyOfB: { id: string; value: string };
  paidCheckoutOfA: Checkout;
  openCheckoutOfA: Checkout;
  checkoutOfB: Checkout;
  portalTokenOfA: string;
  portalTokenOfB: string;
  memberOfA: string;
  invitationOfA: string;
  /** A's secret key the /bff/secret-keys rows change, roll and delete. */
  secretKeyOfA: string;
  /** A's gateway-scoped secret key, A's and B's admin-scoped ones, and the value of a deleted admin key of A's. */
  serverKeyOfA: { id: string; value: string };
  adminKeyOfA: { id: string; value: string };
  adminKeyOfB: { id: string; value: string };
  revokedAdminKeyOfA: string;
  /** A's publishable key the developer-API rows update and delete. */
  apiKeyOfA: string;
  /** A's webhook endpoint the rows list deliveries of and delete. */
  webhookEndpointOfA: string;
};
/** Each signed-up caller goes back to the organisation they had (a row that made them another leaves them in it). */
const backToOwnOrganizations = async () => {
  for (const role of ['userB', 'admin', 'userA'] as const) await as(role, 'PUT', '/bff/current-organization', { organizationId: organizationOf[role] });
};
/** The same address, invited by each owner into their own organisation. */
const invitedByEach = `matrix-invitee-${Date.now()}@example.com`;

/**
 * Every route of the app (both payment modes) × every kind of caller, each sending only its
 * session cookie. The table must name every route the app registers: a new route without an entry
 * here fails the first test. Routes whose credential is not the session (the gateway's key, the
 * sandbox's client secret and invoices link, Stripe's signature) must give a cookie nothing; their
 * own credentials are tried below.
 */
const matrix: Record<string, Case> = {
  'GET /healthz': { url: () => '/healthz', expect: everyone(200) },
  // Open outside production without METRICS_TOKEN (packages/service/src/metrics/metrics.test.ts tries the token).
  'GET /metrics': { url: () => '/metrics', expect: everyone(200) },
  'GET /openapi.json': { url: () => '/openapi.json', expect: everyone(200) },
  'GET /docs': { url: () => '/docs', expect: everyone(200) },
  'GET /bff/config': { url: () => '/bff/config', expect: everyone(200) },
  'GET /bff/me': { url: () => '/bff/me', expect: signedIn(200) },
  'POST /bff/stripe/checkout-session': { url: () => '/bff/stripe/checkout-session', body: { amount: 5 }, expect: signedIn(200) },
  'POST /bff/stripe/customer-portal-session': { url: () => '/bff/stripe/customer-portal-session', expect: signedIn(200) },
  'GET /bff/publishable-keys': { url: () => '/bff/publishable-keys', expect: signedIn(200) },
  'GET /bff/models': { url: () => '/bff/models', expect: signedIn(200) },
  'POST /bff/publishable-keys': { url: () => '/bff/publishable-keys', body: keyBody, expect: signedIn(201) },
  'PUT /bff/publishable-keys/:publishableKeyId': { url: () => `/bff/publishable-keys/${f.keyOfA}`, body: keyBody, expect: ownerOnly(200) },
  // Before DELETE, which leaves no key to roll.
  'POST /bff/publishable-keys/:publishableKeyId/roll': {
    url: () => `/bff/publishable-keys/${f.keyOfA}/roll`,
    body: { overlapHours: 1 },
    expect: ownerOnly(200),
  },
  'GET /bff/publishable-keys/:publishableKeyId/callers': { url: () => `/bff/publishable-keys/${f.keyOfA}/callers`, expect: ownerOnly(200) },
  'GET /bff/publishable-keys/:publishableKeyId/blocks': { url: () => `/bff/publishable-keys/${f.keyOfA}/blocks`, expect: ownerOnly(200) },
  'POST /bff/publishable-keys/:publishableKeyId/blocks': {
    url: () => `/bff/publishable-keys/${f.keyOfA}/blocks`,
    body: { clientAddress: '198.51.100.7' },
    expect: ownerOnly(201),
  },
  'DELETE /bff/publishable-keys/:publishableKeyId/blocks/:blockId': {
    url: () => `/bff/publishable-keys/${f.keyOfA}/blocks/${f.blockOfA}`,
    expect: ownerOnly(204),
  },
  'DELETE /bff/publishable-keys/:publishableKeyId': { url: () => `/bff/publishable-keys/${f.keyOfA}`, expect: ownerOnly(204) },
  'GET /bff/secret-keys': { url: () => '/bff/secret-keys', expect: signedIn(200) },
  'POST /bff/secret-keys': { url: () => '/bff/secret-keys', body: secretKeyBody, expect: signedIn(201) },
  'PUT /bff/secret-keys/:secretKeyId': { url: () => `/bff/secret-keys/${f.secretKeyOfA}`, body: secretKeyBody, expect: ownerOnly(200) },
  // Before DELETE, which leaves no key to roll.
  'POST /bff/secret-keys/:secretKeyId/roll': { url: () => `/bff/secret-keys/${f.secretKeyOfA}/roll`, body: { overlapHours: 1 }, expect: ownerOnly(200) },
  'DELETE /bff/secret-keys/:secretKeyId': { url: () => `/bff/secret-keys/${f.secretKeyOfA}`, expect: ownerOnly(204) },
  'GET /bff/webhook-endpoints': { url: () => '/bff/webhook-endpoints', expect: signedIn(200) },
  'POST /bff/webhook-endpoints': { url: () => '/bff/webhook-endpoints', body: webhookBody, expect: signedIn(201) },
  'GET /bff/webhook-endpoints/:webhookEndpointId/deliveries': {
    url: () => `/bff/webhook-endpoints/${f.webhookEndpointOfA}/deliveries`,
    expect: ownerOnly(200),
  },
  'DELETE /bff/webhook-endpoints/:webhookEndpointId': { url: () => `/bff/webhook-endpoints/${f.webhookEndpointOfA}`, expect: ownerOnly(204) },
  'GET /bff/chat-completions': { url: () => '/bff/chat-completions', expect: signedIn(200) },
  'GET /bff/chat-completions/export': { url: () => '/bff/chat-completions/export', expect: signedIn(200) },
  // Each organisation's owner reads their own organisation's audit log only (audit-log.test.ts checks what each sees).
  'GET /bff/audit-log': { url: () => '/bff/audit-log', expect: signedIn(200) },
  'GET /bff/audit-log/export': { url: () => '/bff/audit-log/export', expect: signedIn(200) },
  // Each organisation's owner reads their own organisation's credit history only (credit-history.test.ts checks what each sees).
  'GET /bff/credit-history': { url: () => '/bff/credit-history', expect: signedIn(200) },
  // Only the organisation's own top-ups: A's is unknown to B and to the admin (404).
  'GET /bff/checkout-sessions/:checkoutSessionId': {
    url: () => `/bff/checkout-sessions/${f.paidCheckoutOfA.checkoutSessionId}`,
    expect: ownerOnly(200),
  },
  'GET /bff/credit-history/export': { url: () => '/bff/credit-history/export', expect: signedIn(200) },
  'GET /bff/usage/daily': { url: () => '/bff/usage/daily', expect: signedIn(200) },
  'POST /bff/feedback': { url: () => '/bff/feedback', body: { type: 'feature_request', description: 'More charts' }, expect: signedIn(201) },
  'GET /bff/alert-settings': { url: () => '/bff/alert-settings', expect: signedIn(200) },
  'PUT /bff/alert-settings': { url: () => '/bff/alert-settings', body: { lowBalance: 5, keyBudgetPercents: [50, 100] }, expect: signedIn(200) },
  'GET /bff/auto-top-up': { url: () => '/bff/auto-top-up', expect: signedIn(200) },
  'PUT /bff/auto-top-up': {
    url: () => '/bff/auto-top-up',
    body: { enabled: false, thresholdAmount: 5, topUpAmount: 20, monthlyCapAmount: 100 },
    expect: signedIn(200),
  },
  'POST /bff/auto-top-up/payment-method': { url: () => '/bff/auto-top-up/payment-method', expect: signedIn(200) },
  // A's organisation has a developer besides A, and a pending invitation; to B and the admin they are ids of nothing.
  'GET /bff/members': { url: () => '/bff/members', expect: signedIn(200) },
  'PUT /bff/members/:personId': { url: () => `/bff/members/${f.memberOfA}`, body: { role: 'billing' }, expect: ownerOnly(200) },
  'DELETE /bff/members/:personId': { url: () => `/bff/members/${f.memberOfA}`, expect: ownerOnly(204) },
  'POST /bff/invitations': { url: () => '/bff/invitations', body: { email: invitedByEach, role: 'developer' }, expect: signedIn(201) },
  'POST /bff/invitations/:invitationId/resend': { url: () => `/bff/invitations/${f.invitationOfA}/resend`, expect: ownerOnly(200) },
  'DELETE /bff/invitations/:invitationId': { url: () => `/bff/invitations/${f.invitationOfA}`, expect: ownerOnly(204) },
  // Any signed-in person may present a link; one that was never mailed (here of A's organisation) opens nothing.
  'POST /bff/invitations/accept': {
    url: () => '/bff/invitations/accept',
    body: () => ({ token: `${organizationOf.userA}.${'x'.repeat(43)}` }),
    expect: signedIn(404),
  },
  'PUT /bff/current-organization': {
    url: () => '/bff/current-organization',
    body: () => ({ organizationId: organizationOf.userA }),
    expect: ownerOnly(200),
  },
  'POST /bff/organizations': { url: () => '/bff/organizations', body: { name: 'Matrix side project' }, expect: signedIn(201), after: backToOwnOrganizations },
  // A is the last owner of A's organisation; to the others it is no organisation of theirs.
  'POST /bff/organizations/:organizationId/leave': {
    url: () => `/bff/organizations/${organizationOf.userA}/leave`,
    expect: { anonymous: 401, unverified: 401, userB: 404, admin: 404, userA: 409 },
  },
  // The dev outbox exists only without SMTP and outside production (plugins/alerts.test.ts); it is public by design there.
  'GET /dev/outbox': { url: () => '/dev/outbox', expect: everyone(200) },
  'GET /admin/persons': { url: () => '/admin/persons', expect: adminOnly },
  'GET /admin/feedback': { url: () => '/admin/feedback', expect: adminOnly },
  // Promotional credit for A's member's organisation (A's): only a system admin may grant it.
  'POST /admin/persons/:personId/credit-grants': {
    url: () => `/admin/persons/${f.memberOfA}/credit-grants`,
    body: { amount: 1, note: 'matrix', expiresOn: '2099-12-31' },
    expect: { ...adminOnly, admin: 201 },
  },
  // A session cookie is not a publishable key, not even the owner's.
  'GET /v1/models': { url: () => '/v1/models', headers: { origin: keyOrigin }, expect: everyone(401) },
  'POST /v1/chat/completions': { url: () => '/v1/chat/completions', headers: { origin: keyOrigin }, body: chatBody, expect: everyone(401) },
  // Nor is it a secret key: the developer API takes an admin-scoped one only (its own rows below try the keys).
  'GET /v1/organization/balance': { url: () => '/v1/organization/balance', expect: everyone(401) },
  'GET /v1/organization/credit-history': { url: () => '/v1/organization/credit-history', expect: everyone(401) },
  'GET /v1/organization/usage': { url: () => '/v1/organization/usage', expect: everyone(401) },
  'GET /v1/organization/usage/daily': { url: () => '/v1/organization/usage/daily', expect: everyone(401) },
  'GET /v1/organization/publishable-keys': { url: () => '/v1/organization/publishable-keys', expect: everyone(401) },
  'POST /v1/organization/publishable-keys': { url: () => '/v1/organization/publishable-keys', body: keyBody, expect: everyone(401) },
  'PUT /v1/organization/publishable-keys/:publishableKeyId': {
    url: () => `/v1/organization/publishable-keys/${f.apiKeyOfA}`,
    body: keyBody,
    expect: everyone(401),
  },
  'DELETE /v1/organization/publishable-keys/:publishableKeyId': { url: () => `/v1/organization/publishable-keys/${f.apiKeyOfA}`, expect: everyone(401) },
  // The client secret is the sandbox's credential: without the right one, not even the owner's cookie opens the session.
  'GET /sandbox/checkout-sessions/:checkoutSessionId': {
    url: () => `/sandbox/checkout-sessions/${f.openCheckoutOfA.checkoutSessionId}?client_secret=${f.checkoutOfB.clientSecret}`,
    expect: everyone(404),
  },
  'POST /sandbox/checkout-sessions/:checkoutSessionId/confirm': {
    url: () => `/sandbox/checkout-sessions/${f.openCheckoutOfA.checkoutSessionId}/confirm`,
    body: { clientSecret: 'cs_sandbox_guessed_secret_x', cardNumber: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' },
    expect: everyone(404),
  },
  'GET /sandbox/portal': { url: () => `/sandbox/portal?token=${forgedPortalToken()}`, expect: everyone(404) },
  'GET /sandbox/portal/receipts/:checkoutSessionId': {
    url: () => `/sandbox/portal/receipts/${f.paidCheckoutOfA.checkoutSessionId}?token=${forgedPortalToken()}`,
    expect: everyone(404),
  },
  // A forged link opens no receipt; a genuine link opens only its own organisation's (sandbox.test.ts).
  'GET /sandbox/portal/auto-top-up-receipts/:chargeId': {
    url: () => `/sandbox/portal/auto-top-up-receipts/${randomUUID()}?token=${forgedPortalToken()}`,
    expect: everyone(404),
  },
  'POST /sandbox/portal/top-ups/:checkoutSessionId/reversals': {
    url: () => `/sandbox/portal/top-ups/${f.paidCheckoutOfA.checkoutSessionId}/reversals?token=${forgedPortalToken()}`,
    body: { action: 'refund' },
    expect: everyone(404),
  },
  'POST /sandbox/portal/auto-top-ups/:chargeId/reversals': {
    url: () => `/sandbox/portal/auto-top-ups/${randomUUID()}/reversals?token=${forgedPortalToken()}`,
    body: { action: 'refund' },
    expect: everyone(404),
  },
  'POST /webhooks/stripe': {
    app: 'stripe',
    url: () => '/webhooks/stripe',
    body: { id: 'evt_matrix', object: 'event', type: 'checkout.session.completed' },
    expect: everyone(400),
  },
};

const cookies = {} as Record<Role, string | undefined>;
const organizationOf = {} as Record<'userA' | 'userB' | 'admin', string>;
let emailOfA = '';
const teams = teamsOf(
  () => t.app,
  async (email) => (await t.app.inject({ method: 'GET', url: `/dev/outbox?to=${encodeURIComponent(email)}` })).json().messages.at(-1)?.link,
);
const counts = { requests: 0, checks: 0, violations: [] as string[] };

async function send(options: InjectOptions, app = t.app): Promise<LightMyRequestResponse> {
  counts.requests++;
  const response = await app.inject(options);
  counts.checks++;
  // However a request is refused, never a 5xx, never internals.
  if (response.statusCode >= 500) counts.violations.push(`${options.method} ${String(options.url)}: ${response.statusCode}`);
  return response;
}
const as = (role: Role, method: InjectOptions['method'], url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  send({
    method,
    url,
    headers: { ...headers, ...(cookies[role] ? { cookie: cookies[role] } : {}) },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
const gateway = (method: 'GET' | 'POST', url: string, headers: Record<string, string>) =>
  send({ method, url, headers, ...(method === 'POST' ? { payload: chatBody } : {}) });

/** A's organisation id with B's signature: the invoices link's payload and signature must belong together. */
function forgedPortalToken() {
  const [, signatureOfB] = f.portalTokenOfB.split('.');
  const [payloadOfA] = f.portalTokenOfA.split('.');
  return `${payloadOfA}.${signatureOfB}`;
}

beforeAll(async () => {
  cookies.anonymous = undefined;
  cookies.unverified = (await t.users.signUp({ verified: false })).cookie;
  const userA = await t.users.signUp();
  cookies.userA = userA.cookie;
  emailOfA = userA.email;
  cookies.userB = (await t.users.signUp()).cookie;
  cookies.admin = (await t.users.signUp({ email: adminEmail })).cookie;
  for (const role of ['userA', 'userB', 'admin'] as const) {
    organizationOf[role] = (await as(role, 'GET', '/bff/me')).json().organizationId ?? '';
  }
  const memberOfA = await t.users.signUp();
  await teams.join({ email: emailOfA, cookie: userA.cookie }, memberOfA, 'developer');
  f.memberOfA = (await as('userA', 'GET', '/bff/members')).json().members.find((member: { email: string }) => member.email === memberOfA.email).personId;
  f.invitationOfA = (await as('userA', 'POST', '/bff/invitations', { email: `matrix-pending-${Date.now()}@example.com`, role: 'billing' })).json().invitationId;

  f.keyOfA = (await as('userA', 'POST', '/bff/publishable-keys', keyBody)).json().id;
  f.blockOfA = (await as('userA', 'POST', `/bff/publishable-keys/${f.keyOfA}/blocks`, { clientAddress: '203.0.113.50' })).json().id;
  f.gatewayKeyOfA = (await as('userA', 'POST', '/bff/publishable-keys', { ...keyBody, name: 'Gateway' })).json();
  f.deletedKeyOfA = (await as('userA', 'POST', '/bff/publishable-keys', { ...keyBody, name: 'Deleted' })).json().value;
  const deleted = (await as('userA', 'GET', '/bff/publishable-keys')).json().publishableKeys.find((key: { value: string }) => key.value === f.deletedKeyOfA);
  await as('userA', 'DELETE', `/bff/publishable-keys/${deleted.id}`);
  f.keyOfB = (await as('userB', 'POST', '/bff/publishable-keys', { ...keyBody, allowedOrigins: ['https://b.example.com'] })).json();
  // Secret keys, made as the console makes them.
  f.secretKeyOfA = (await as('userA', 'POST', '/bff/secret-keys', secretKeyBody)).json().id;
  f.serverKeyOfA = (await as('userA', 'POST', '/bff/secret-keys', { ...secretKeyBody, name: 'Matrix backend' })).json();
  f.adminKeyOfA = (await as('userA', 'POST', '/bff/secret-keys', adminKeyBody)).json();
  f.adminKeyOfB = (await as('userB', 'POST', '/bff/secret-keys', adminKeyBody)).json();
  const revoked = (await as('userA', 'POST', '/bff/secret-keys', { ...adminKeyBody, name: 'Matrix revoked' })).json();
  expect((await as('userA', 'DELETE', `/bff/secret-keys/${revoked.id}`)).statusCode).toBe(204);
  f.revokedAdminKeyOfA = revoked.value;
  f.apiKeyOfA = (await as('userA', 'POST', '/bff/publishable-keys', { ...keyBody, name: 'Managed by a script' })).json().id;
  f.webhookEndpointOfA = (await as('userA', 'POST', '/bff/webhook-endpoints', webhookBody)).json().id;
  expect([f.serverKeyOfA.value, f.adminKeyOfA.value, f.adminKeyOfB.value, f.revokedAdminKeyOfA].every((value) => /^sk_live_/.test(value))).toBe(true);

  // A pays $5 (so A's key can call the gateway) and leaves a second top-up open.
  f.paidCheckoutOfA = (await as('userA', 'POST', '/bff/stripe/checkout-session', { amount: 5 })).json();
  const paid = await send({
    method: 'POST',
    url: `/sandbox/checkout-sessions/${f.paidCheckoutOfA.checkoutSessionId}/confirm`,
    payload: { clientSecret: f.paidCheckoutOfA.clientSecret, cardNumber: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' },
  });
  expect(paid.statusCode).toBe(202);
  await settleSandbox(t.testDb.db, new Date());
  f.openCheckoutOfA = (await as('userA', 'POST', '/bff/stripe/checkout-session', { amount: 7 })).json();
  f.checkoutOfB = (await as('userB', 'POST', '/bff/stripe/checkout-session', { amount: 3 })).json();
  const tokenOf = async (role: 'userA' | 'userB') =>
    new URL((await as(role, 'POST', '/bff/stripe/customer-portal-session')).json().url).searchParams.get('token') ?? '';
  f.portalTokenOfA = await tokenOf('userA');
  f.portalTokenOfB = await tokenOf('userB');

  // Three metered calls, so A's usage list has pages.
  for (let call = 0; call < 3; call++) {
    const answer = await gateway('POST', '/v1/chat/completions', { authorization: `Bearer ${f.gatewayKeyOfA.value}`, origin: keyOrigin });
    expect(answer.statusCode, answer.body).toBe(200);
  }
  // Settlement follows each answer; the lists below read the calls once they are charged.
  await t.app.meter.settling();
}, 90_000);

afterAll(() => {
  // The suite's closing line (the last test fails on any violation).
  // eslint-disable-next-line no-console
  console.log(`api authorisation matrix: ${counts.requests} requests sent, ${counts.checks} invariant checks, ${counts.violations.length} violations`);
});

describe('IDOR attempts on user A', () => {
  it("B and the admin can neither read, update nor delete A's publishable key by its id, and learn nothing from trying", async () => {
    const unknownId = '00000000-0000-4000-8000-000000000000';
    for (const role of ['userB', 'admin'] as const) {
      const put = await as(role, 'PUT', `/bff/publishable-keys/${f.gatewayKeyOfA.id}`, {
        ...keyBody,
        name: 'Taken over',
        allowedOrigins: ['https://evil.example.net'],
      });
      const putUnknown = await as(role, 'PUT', `/bff/publishable-keys/${unknownId}`, keyBody);
      expect(put.statusCode).toBe(404);
      // The same answer as for a key that exists nowhere: no oracle for A's key ids.
      expect(put.json().detail).toBe(putUnknown.json().detail);
      expect((await as(role, 'DELETE', `/bff/publishable-keys/${f.gatewayKeyOfA.id}`)).statusCode).toBe(404);
      const listed = (await as(role, 'GET', '/bff/publishable-keys')).body;
      expect(listed).not.toContain(f.gatewayKeyOfA.id);
      expect(listed).not.toContain(f.gatewayKeyOfA.value);
      // Filtering usage by A's key shows none of A's calls.
      const usage = await as(role, 'GET', `/bff/chat-completions?publishableKeyId=${f.gatewayKeyOfA.id}`);
      expect(usage.statusCode).toBe(200);
      expect(usage.json().items).toEqual([]);
    }
    const mine = (await as('userA', 'GET', '/bff/publishable-keys')).json().publishableKeys.find((key: { id: string }) => key.id === f.gatewayKeyOfA.id);
    expect(mine).toMatchObject({ name: 'Gateway', allowedOrigins: [keyOrigin] });
    expect((await as('userA', 'GET', `/bff/chat-completions?publishableKeyId=${f.gatewayKeyOfA.id}`)).json().items).toHaveLength(3);
    expect((await gateway('GET', '/v1/models', { authorization: `Bearer ${f.gatewayKeyOfA.value}`, origin: keyOrigin })).statusCode).toBe(200);
  });

  it("B cannot read or confirm A's sandbox checkout session without A's client secret", async () => {
    const { checkoutSessionId, clientSecret } = f.openCheckoutOfA;
    const flipped = `${clientSecret.slice(0, -1)}${clientSecret.endsWith('a') ? 'b' : 'a'}`;
    const read = (secret?: string) =>
      as('userB', 'GET', `/sandbox/checkout-sessions/${checkoutSessionId}${secret === undefined ? '' : `?client_secret=${encodeURIComponent(secret)}`}`);
    expect((await read()).statusCode).toBe(400);
    for (const secret of [f.checkoutOfB.clientSecret, flipped, '', `${clientSecret}x`]) expect((await read(secret)).statusCode).toBe(404);
    // A's secret on B's session does not open B's either: the secret belongs to its session.
    expect((await as('userB', 'GET', `/sandbox/checkout-sessions/${f.checkoutOfB.checkoutSessionId}?client_secret=${clientSecret}`)).statusCode).toBe(404);

    const card = { cardNumber: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' };
    const confirm = (secret: string | undefined) =>
      as('userB', 'POST', `/sandbox/checkout-sessions/${checkoutSessionId}/confirm`, { ...card, ...(secret === undefined ? {} : { clientSecret: secret }) });
    expect((await confirm(undefined)).statusCode).toBe(400);
    for (const secret of [f.checkoutOfB.clientSecret, flipped]) expect((await confirm(secret)).statusCode).toBe(404);
    const sessionsOfA = (await as('userA', 'GET', '/bff/me')).json().organizationCheckoutSessions;
    expect(sessionsOfA).toContainEqual({ checkoutSessionId, status: 'IN_PROGRESS' });

    // The secret itself is the credential (as Stripe's client secret is): whoever holds it pays A's
    // top-up, and the credit lands in A's organisation, never the caller's.
    expect((await read(clientSecret)).json()).toMatchObject({ checkoutSessionId, status: 'IN_PROGRESS', credit: 7 });
    const balanceOfB = (await as('userB', 'GET', '/bff/me')).json().remainingSpendAmount;
    expect((await confirm(clientSecret)).statusCode).toBe(202);
    await settleSandbox(t.testDb.db, new Date());
    expect((await as('userB', 'GET', '/bff/me')).json().remainingSpendAmount).toBe(balanceOfB);
    expect((await as('userA', 'GET', '/bff/me')).json().organizationCheckoutSessions).toContainEqual({ checkoutSessionId, status: 'SUCCEEDED' });
  });

  it("B's invoices link opens B's invoices only; a link stitched from A's and B's is refused", async () => {
    const receiptOfA = (token: string) => send({ method: 'GET', url: `/sandbox/portal/receipts/${f.paidCheckoutOfA.checkoutSessionId}?token=${token}` });
    expect((await receiptOfA(f.portalTokenOfA)).statusCode).toBe(200);
    expect((await receiptOfA(f.portalTokenOfB)).statusCode).toBe(404);
    expect((await receiptOfA(forgedPortalToken())).statusCode).toBe(404);
    const pageOfB = await send({ method: 'GET', url: `/sandbox/portal?token=${f.portalTokenOfB}` });
    expect(pageOfB.statusCode).toBe(200);
    expect(pageOfB.body).not.toContain(f.paidCheckoutOfA.checkoutSessionId);
    const refundOfA = (token: string) =>
      send({ method: 'POST', url: `/sandbox/portal/top-ups/${f.paidCheckoutOfA.checkoutSessionId}/reversals?token=${token}`, payload: { action: 'refund' } });
    expect((await refundOfA(f.portalTokenOfB)).statusCode).toBe(404);
    expect((await refundOfA(forgedPortalToken())).statusCode).toBe(404);
  });

  it("A's page tokens replayed by B or the admin, or tampered with, are refused", async () => {
    const firstPage = (await as('userA', 'GET', '/bff/chat-completions?limit=1')).json();
    const token: string = firstPage.pagination.nextPageToken;
    expect(token).toEqual(expect.any(String));
    const page = (role: Role, query: string) => as(role, 'GET', `/bff/chat-completions?limit=1&${query}`);

    expect((await page('userA', `nextPageToken=${token}`)).statusCode).toBe(200);
    for (const role of ['userB', 'admin'] as const) {
      const replay = await page(role, `nextPageToken=${token}`);
      expect(replay.statusCode).toBe(400);
      expect(replay.json().detail).toBe('Invalid page token.');
    }
    for (const role of ['anonymous', 'unverified'] as const) expect((await page(role, `nextPageToken=${token}`)).statusCode).toBe(401);

    const [payload = '', signature = ''] = token.split('.');
    const [, signatureOfB = ''] = String((await as('userB', 'GET', '/bff/chat-completions?limit=1')).json().pagination.nextPageToken ?? '.x').split('.');
    const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
    const tampered = [
      `${flip(payload, 5)}.${signature}`,
      `${payload}.${flip(signature, 3)}`,
      `${payload}.${signatureOfB}`,
      `${Buffer.from(Buffer.from(payload, 'base64url').toString().replace(organizationOf.userA, organizationOf.userB)).toString('base64url')}.${signature}`,
      `${payload}.${signature}.extra`,
      payload,
      token.slice(0, -2),
    ];
    for (const forged of tampered) expect((await page('userA', `nextPageToken=${encodeURIComponent(forged)}`)).statusCode).toBe(400);
    // A token is valid only for the list, order, filter and direction it was handed out with.
    for (const query of [`previousPageToken=${token}`, `asc=true&nextPageToken=${token}`, `publishableKeyId=${f.gatewayKeyOfA.id}&nextPageToken=${token}`]) {
      expect((await page('userA', query)).statusCode).toBe(400);
    }
  });

  it('admin lists refuse everyone but the admin, however they are asked', async () => {
    const adminToken = (await as('admin', 'GET', '/admin/persons?limit=1')).json().pagination.nextPageToken;
    expect(adminToken).toEqual(expect.any(String));
    const variants = [
      '/admin/persons?limit=1',
      '/admin/persons?asc=true',
      `/admin/persons?limit=1&nextPageToken=${adminToken}`,
      '/admin/feedback?limit=100',
      '/admin/persons/',
      '/admin//persons',
      '/ADMIN/persons',
      '/admin/%70ersons',
      '/admin/persons;x',
      '/bff/../admin/persons',
    ];
    for (const role of ['anonymous', 'unverified', 'userB', 'userA'] as const) {
      for (const url of variants) {
        const response = await as(role, 'GET', url);
        counts.checks++;
        if (response.statusCode < 400) counts.violations.push(`${role} GET ${url}: ${response.statusCode}`);
      }
    }
    expect(counts.violations).toEqual([]);
  });
});

describe('the gateway: only a live key, from one of its origins', () => {
  const keyA = () => `Bearer ${f.gatewayKeyOfA.value}`;
  const cases: [string, () => Record<string, string>, number][] = [
    ['no credentials', () => ({ origin: keyOrigin }), 401],
    ["A's session cookie", () => ({ cookie: cookies.userA ?? '', origin: keyOrigin }), 401],
    ["A's key in another header", () => ({ 'x-api-key': f.gatewayKeyOfA.value, origin: keyOrigin }), 401],
    ["A's key, deleted", () => ({ authorization: `Bearer ${f.deletedKeyOfA}`, origin: keyOrigin }), 401],
    ['a well-formed key nobody holds', () => ({ authorization: `Bearer pk_live_${'0'.repeat(32)}`, origin: keyOrigin }), 401],
    ["A's key, no Origin", () => ({ authorization: keyA() }), 403],
    ["A's key, Origin null", () => ({ authorization: keyA(), origin: 'null' }), 403],
    ["A's key, a foreign origin", () => ({ authorization: keyA(), origin: 'https://evil.example.net' }), 403],
    ["A's key, its origin over http", () => ({ authorization: keyA(), origin: 'http://matrix.example.com' }), 403],
    ["A's key, its origin on another port", () => ({ authorization: keyA(), origin: 'https://matrix.example.com:8443' }), 403],
    ["A's key, a subdomain of its origin", () => ({ authorization: keyA(), origin: 'https://x.matrix.example.com' }), 403],
    ["B's key from A's origin", () => ({ authorization: `Bearer ${f.keyOfB.value}`, origin: keyOrigin }), 403],
    ["A's key from its origin", () => ({ authorization: keyA(), origin: keyOrigin }), 200],
    ["A's gateway-scoped secret key from a page", () => ({ authorization: `Bearer ${f.serverKeyOfA.value}`, origin: keyOrigin }), 403],
    ["A's admin-scoped secret key from a server", () => ({ authorization: `Bearer ${f.adminKeyOfA.value}` }), 403],
    ["A's deleted admin-scoped secret key", () => ({ authorization: `Bearer ${f.revokedAdminKeyOfA}` }), 401],
    ["A's gateway-scoped secret key from a server", () => ({ authorization: `Bearer ${f.serverKeyOfA.value}` }), 200],
  ];
  for (const [what, headers, status] of cases) {
    it(`${what}: ${status}`, async () => {
      for (const [method, url] of [
        ['GET', '/v1/models'],
        ['POST', '/v1/chat/completions'],
      ] as const) {
        const response = await gateway(method, url, headers());
        expect(response.statusCode, `${method} ${url}`).toBe(status);
        if (status >= 400) expect(response.json().error).toMatchObject({ type: expect.any(String), code: expect.any(String) });
      }
    });
  }
});

/**
 * Every developer-API route × every kind of credential: only a live admin-scoped secret key, from a
 * server, reaches it; another organisation's admin key reaches its own organisation only (404 for
 * A's key ids, nothing of A's in its answers).
 */
describe('the developer API: only a live admin-scoped secret key, for its own organisation', () => {
  type Caller = 'none' | 'cookie' | 'publishable' | 'gatewayScope' | 'revoked' | 'fromPage' | 'otherOrganization' | 'admin';
  const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
  /** Tried in this order, so A's admin key's destructive call (DELETE) comes last. */
  const callers: Record<Caller, () => Record<string, string>> = {
    none: () => ({}),
    cookie: () => ({ cookie: cookies.userA ?? '' }),
    publishable: () => bearer(f.gatewayKeyOfA.value),
    gatewayScope: () => bearer(f.serverKeyOfA.value),
    revoked: () => bearer(f.revokedAdminKeyOfA),
    fromPage: () => ({ ...bearer(f.adminKeyOfA.value), origin: keyOrigin }),
    otherOrganization: () => bearer(f.adminKeyOfB.value),
    admin: () => bearer(f.adminKeyOfA.value),
  };
  const refused = { none: 401, cookie: 401, publishable: 401, gatewayScope: 403, revoked: 401, fromPage: 403 };
  type DeveloperCase = { url: () => string; body?: object; otherOrganization: number; admin: number };
  const keyOfAUrl = () => `/v1/organization/publishable-keys/${f.apiKeyOfA}`;
  const developerCases: Record<string, DeveloperCase> = {
    'GET /v1/organization/balance': { url: () => '/v1/organization/balance', otherOrganization: 200, admin: 200 },
    'GET /v1/organization/credit-history': { url: () => '/v1/organization/credit-history', otherOrganization: 200, admin: 200 },
    'GET /v1/organization/usage': { url: () => '/v1/organization/usage', otherOrganization: 200, admin: 200 },
    'GET /v1/organization/usage/daily': { url: () => '/v1/organization/usage/daily?days=7', otherOrganization: 200, admin: 200 },
    'GET /v1/organization/publishable-keys': { url: () => '/v1/organization/publishable-keys', otherOrganization: 200, admin: 200 },
    'POST /v1/organization/publishable-keys': { url: () => '/v1/organization/publishable-keys', body: keyBody, otherOrganization: 201, admin: 201 },
    'PUT /v1/organization/publishable-keys/:publishableKeyId': { url: keyOfAUrl, body: keyBody, otherOrganization: 404, admin: 200 },
    'DELETE /v1/organization/publishable-keys/:publishableKeyId': { url: keyOfAUrl, otherOrganization: 404, admin: 204 },
  };
  /** What B's admin key must never see of A's. */
  const secretsOfA = () => [organizationOf.userA, f.gatewayKeyOfA.id, f.gatewayKeyOfA.value, f.apiKeyOfA, f.serverKeyOfA.id, f.adminKeyOfA.id];

  it('has a row for every developer-API route', () => {
    const registered = t.app.routeTable.filter((route) => route.url.startsWith('/v1/organization')).map((route) => `${route.method} ${route.url}`);
    expect([...new Set(registered)].sort()).toEqual(Object.keys(developerCases).sort());
  });

  for (const [route, testCase] of Object.entries(developerCases)) {
    const expected = { ...refused, otherOrganization: testCase.otherOrganization, admin: testCase.admin };
    it(`${route}: ${Object.entries(expected)
      .map(([caller, status]) => `${caller} ${status}`)
      .join(', ')}`, async () => {
      const method = route.split(' ')[0] as 'GET' | 'POST' | 'PUT' | 'DELETE';
      const statuses = {} as Record<Caller, number>;
      for (const [caller, headers] of Object.entries(callers) as [Caller, () => Record<string, string>][]) {
        const response = await send({ method, url: testCase.url(), headers: headers(), ...(testCase.body ? { payload: testCase.body } : {}) });
        statuses[caller] = response.statusCode;
        if (response.statusCode >= 400) {
          expect(Object.keys(response.json()), `${caller}: ${response.body}`).toEqual(['error']);
          expect(response.json().error, caller).toMatchObject({ message: expect.stringMatching(/\S/), type: expect.any(String), code: expect.any(String) });
        }
        if (caller === 'otherOrganization') for (const secret of secretsOfA()) expect(response.body, `B's admin key sees ${secret}`).not.toContain(secret);
      }
      expect(statuses).toEqual(expected);
    });
  }

  it("filters usage by A's key for A's admin key only, and A's keys stand after B's attempts", async () => {
    const usageOf = async (value: string) =>
      (await send({ method: 'GET', url: `/v1/organization/usage?publishableKeyId=${f.gatewayKeyOfA.id}`, headers: bearer(value) })).json().items;
    // The three calls of the set-up, and any the gateway rows made since.
    const ofA = await usageOf(f.adminKeyOfA.value);
    expect(ofA.length).toBeGreaterThanOrEqual(3);
    expect(ofA.every((item: { publishableKeyId: string }) => item.publishableKeyId === f.gatewayKeyOfA.id)).toBe(true);
    expect(await usageOf(f.adminKeyOfB.value)).toEqual([]);
    const keysOfA = (await as('userA', 'GET', '/bff/publishable-keys')).json().publishableKeys.map((key: { id: string }) => key.id);
    expect(keysOfA).toContain(f.gatewayKeyOfA.id);
    // The key the rows created with B's admin key is B's.
    const keysOfB = (await as('userB', 'GET', '/bff/publishable-keys')).json().publishableKeys.map((key: { name: string }) => key.name);
    expect(keysOfB).toContain(keyBody.name);
  });
});

describe('the Stripe webhook: only the signature counts', () => {
  const deliver = (payload: string, signature: string | undefined, cookie?: string) =>
    send(
      {
        method: 'POST',
        url: '/webhooks/stripe',
        headers: { 'content-type': 'application/json', ...(signature ? { 'stripe-signature': signature } : {}), ...(cookie ? { cookie } : {}) },
        payload,
      },
      stripeApp.app,
    );
  it("refuses the admin's cookie without a signature, and a signature made with another secret; takes a signed event", async () => {
    const payload = JSON.stringify({ id: 'evt_matrix_signed', object: 'event', type: 'customer.created', data: { object: {} } });
    expect((await deliver(payload, undefined, cookies.admin)).statusCode).toBe(400);
    const foreign = fake.stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someone_else' });
    expect((await deliver(payload, foreign)).statusCode).toBe(400);
    const signed = fake.stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    expect((await deliver(payload, signed)).statusCode).toBe(200);
  });
});

describe('authorisation matrix', () => {
  it('covers every route the app registers, with either payment provider', () => {
    const routesOf = (table: { method: string; url: string }[]) => table.map((route) => `${route.method} ${route.url}`);
    const registered = [...new Set([...routesOf(t.app.routeTable), ...routesOf(stripeApp.app.routeTable)])].sort();
    expect(registered).toEqual(Object.keys(matrix).sort());
  });

  for (const [route, testCase] of Object.entries(matrix)) {
    it(`${route}: ${roles.map((role) => `${role} ${testCase.expect[role]}`).join(', ')}`, async () => {
      const method = route.split(' ')[0] as 'GET' | 'POST' | 'PUT' | 'DELETE';
      const statuses = {} as Record<Role, number>;
      for (const role of roles) {
        const cookie = cookies[role];
        const response = await send(
          {
            method,
            url: testCase.url(),
            headers: { ...testCase.headers, ...(cookie ? { cookie } : {}) },
            ...(testCase.body ? { payload: (typeof testCase.body === 'function' ? testCase.body() : testCase.body) as object } : {}),
          },
          testCase.app === 'stripe' ? stripeApp.app : t.app,
        );
        statuses[role] = response.statusCode;
      }
      await testCase.after?.();
      expect(statuses).toEqual(testCase.expect);
    });
  }

  it('names the roles every /bff route allows (config.roles), except the public payment config', () => {
    const bff = t.app.routeTable.filter((route) => route.url.startsWith('/bff/') && route.url !== '/bff/config');
    expect(bff.length).toBeGreaterThan(20);
    expect(bff.filter((route) => !route.roles?.length).map((route) => `${route.method} ${route.url}`)).toEqual([]);
  });

  it('ends with no violation: no 5xx anywhere, no admin list answered to anyone else', () => {
    expect(counts.violations).toEqual([]);
  });
});

/**
 * One organisation with a member of each role: every /bff route answers exactly the roles contracts'
 * rolesAllowedTo names for it (403 to the others), and ids of another organisation answer 404 to
 * every role the route allows, as ids that exist nowhere.
 */
const teamRoles: TeamRole[] = ['owner', 'admin', 'developer', 'billing'];
const perRole = <T>(value: (role: TeamRole, index: number) => T) =>
  Object.fromEntries(teamRoles.map((role, index) => [role, value(role, index)])) as Record<TeamRole, T>;
const team = {} as {
  people: Record<TeamRole, { email: string; cookie: string }>;
  personIdOf: Record<TeamRole, string>;
  organizationId: string;
  sharedKey: string;
  keyOf: Record<TeamRole, string>;
  sharedSecretKey: string;
  secretKeyOf: Record<TeamRole, string>;
  sharedWebhookEndpoint: string;
  webhookEndpointOf: Record<TeamRole, string>;
  blockOf: Record<TeamRole, string>;
  memberToChange: string;
  removableOf: Record<TeamRole, string>;
  invitationOf: Record<TeamRole, string>;
  sharedInvitation: string;
  personOfA: string;
  foreignInvitation: string;
  foreignWebhookEndpoint: string;
  checkout: string;
};
type TeamRequest = { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; body?: object };
type TeamCase = {
  allowed: Permission;
  /** What an allowed role gets. */
  status: number | ((role: TeamRole) => number);
  request: (role: TeamRole, index: number) => TeamRequest;
  /** Puts back what an allowed call changed that the rows after rely on. */
  restore?: (role: TeamRole) => Promise<void>;
};
const asMember = (role: TeamRole, { method, url, body }: TeamRequest) =>
  send({ method, url, headers: { cookie: team.people[role].cookie }, ...(body ? { payload: body } : {}) });
const switchBackToTeam = async (role: TeamRole) => {
  await asMember(role, { method: 'PUT', url: '/bff/current-organization', body: { organizationId: team.organizationId } });
};
const stamp = Date.now();
const teamKeyBody = { name: 'Team key', budget: 5, budgetType: 'monthly', allowedOrigins: [keyOrigin] };
const teamSecretKeyBody = { name: 'Team server key', budget: 5, budgetType: 'monthly' };
const get = (url: string) => (): TeamRequest => ({ method: 'GET', url });
const sharedKeyUrl = (suffix = '') => `/bff/publishable-keys/${team.sharedKey}${suffix}`;

const teamCases: Record<string, TeamCase> = {
  'GET /bff/me': { allowed: 'seeOrganization', status: 200, request: get('/bff/me') },
  'GET /bff/models': { allowed: 'seeOrganization', status: 200, request: get('/bff/models') },
  'GET /bff/chat-completions': { allowed: 'seeOrganization', status: 200, request: get('/bff/chat-completions') },
  'GET /bff/chat-completions/export': { allowed: 'seeOrganization', status: 200, request: get('/bff/chat-completions/export') },
  'GET /bff/usage/daily': { allowed: 'seeOrganization', status: 200, request: get('/bff/usage/daily') },
  'POST /bff/feedback': {
    allowed: 'seeOrganization',
    status: 201,
    request: () => ({ method: 'POST', url: '/bff/feedback', body: { type: 'question', description: 'Who sees this?' } }),
  },
  'GET /bff/publishable-keys': { allowed: 'manageKeys', status: 200, request: get('/bff/publishable-keys') },
  'POST /bff/publishable-keys': { allowed: 'manageKeys', status: 201, request: () => ({ method: 'POST', url: '/bff/publishable-keys', body: teamKeyBody }) },
  'PUT /bff/publishable-keys/:publishableKeyId': {
    allowed: 'manageKeys',
    status: 200,
    request: () => ({ method: 'PUT', url: sharedKeyUrl(), body: teamKeyBody }),
  },
  'POST /bff/publishable-keys/:publishableKeyId/roll': {
    allowed: 'manageKeys',
    status: 200,
    request: () => ({ method: 'POST', url: sharedKeyUrl('/roll'), body: { overlapHours: 1 } }),
  },
  'GET /bff/publishable-keys/:publishableKeyId/callers': {
    allowed: 'manageKeys',
    status: 200,
    request: () => ({ method: 'GET', url: sharedKeyUrl('/callers') }),
  },
  'GET /bff/publishable-keys/:publishableKeyId/blocks': {
    allowed: 'manageKeys',
    status: 200,
    request: () => ({ method: 'GET', url: sharedKeyUrl('/blocks') }),
  },
  'POST /bff/publishable-keys/:publishableKeyId/blocks': {
    allowed: 'manageKeys',
    status: 201,
    request: (_role, index) => ({ method: 'POST', url: sharedKeyUrl('/blocks'), body: { clientAddress: `198.51.100.${40 + index}` } }),
  },
  'DELETE /bff/publishable-keys/:publishableKeyId/blocks/:blockId': {
    allowed: 'manageKeys',
    status: 204,
    request: (role) => ({ method: 'DELETE', url: sharedKeyUrl(`/blocks/${team.blockOf[role]}`) }),
  },
  'DELETE /bff/publishable-keys/:publishableKeyId': {
    allowed: 'manageKeys',
    status: 204,
    request: (role) => ({ method: 'DELETE', url: `/bff/publishable-keys/${team.keyOf[role]}` }),
  },
  'GET /bff/secret-keys': { allowed: 'manageKeys', status: 200, request: get('/bff/secret-keys') },
  'POST /bff/secret-keys': { allowed: 'manageKeys', status: 201, request: () => ({ method: 'POST', url: '/bff/secret-keys', body: teamSecretKeyBody }) },
  'PUT /bff/secret-keys/:secretKeyId': {
    allowed: 'manageKeys',
    status: 200,
    request: () => ({ method: 'PUT', url: `/bff/secret-keys/${team.sharedSecretKey}`, body: teamSecretKeyBody }),
  },
  'POST /bff/secret-keys/:secretKeyId/roll': {
    allowed: 'manageKeys',
    status: 200,
    request: () => ({ method: 'POST', url: `/bff/secret-keys/${team.sharedSecretKey}/roll`, body: { overlapHours: 1 } }),
  },
  'DELETE /bff/secret-keys/:secretKeyId': {
    allowed: 'manageKeys',
    status: 204,
    request: (role) => ({ method: 'DELETE', url: `/bff/secret-keys/${team.secretKeyOf[role]}` }),
  },
  'GET /bff/webhook-endpoints': { allowed: 'manageWebhooks', status: 200, request: get('/bff/webhook-endpoints') },
  'POST /bff/webhook-endpoints': {
    allowed: 'manageWebhooks',
    status: 201,
    request: () => ({ method: 'POST', url: '/bff/webhook-endpoints', body: webhookBody }),
    // A team has at most 10 endpoints: each one made is taken away again.
    restore: async () => {
      const { webhookEndpoints } = (await asMember('owner', { method: 'GET', url: '/bff/webhook-endpoints' })).json();
      const made = webhookEndpoints.filter(
        (endpoint: { id: string }) => endpoint.id !== team.sharedWebhookEndpoint && !Object.values(team.webhookEndpointOf).includes(endpoint.id),
      );
      for (const endpoint of made) await asMember('owner', { method: 'DELETE', url: `/bff/webhook-endpoints/${endpoint.id}` });
    },
  },
  'GET /bff/webhook-endpoints/:webhookEndpointId/deliveries': {
    allowed: 'manageWebhooks',
    status: 200,
    request: () => ({ method: 'GET', url: `/bff/webhook-endpoints/${team.sharedWebhookEndpoint}/deliveries` }),
  },
  'DELETE /bff/webhook-endpoints/:webhookEndpointId': {
    allowed: 'manageWebhooks',
    status: 204,
    request: (role) => ({ method: 'DELETE', url: `/bff/webhook-endpoints/${team.webhookEndpointOf[role]}` }),
  },
  'POST /bff/stripe/checkout-session': {
    allowed: 'manageCredit',
    status: 200,
    request: () => ({ method: 'POST', url: '/bff/stripe/checkout-session', body: { amount: 5 } }),
  },
  'GET /bff/checkout-sessions/:checkoutSessionId': {
    allowed: 'manageCredit',
    status: 200,
    request: () => ({ method: 'GET', url: `/bff/checkout-sessions/${team.checkout}` }),
  },
  'POST /bff/stripe/customer-portal-session': {
    allowed: 'manageCredit',
    status: 200,
    request: () => ({ method: 'POST', url: '/bff/stripe/customer-portal-session' }),
  },
  'GET /bff/alert-settings': { allowed: 'manageCredit', status: 200, request: get('/bff/alert-settings') },
  'GET /bff/auto-top-up': { allowed: 'seeOrganization', status: 200, request: get('/bff/auto-top-up') },
  'PUT /bff/auto-top-up': {
    allowed: 'manageCredit',
    status: 200,
    request: () => ({ method: 'PUT', url: '/bff/auto-top-up', body: { enabled: false, thresholdAmount: 5, topUpAmount: 20, monthlyCapAmount: 100 } }),
  },
  'POST /bff/auto-top-up/payment-method': {
    allowed: 'manageCredit',
    status: 200,
    request: () => ({ method: 'POST', url: '/bff/auto-top-up/payment-method' }),
  },
  'PUT /bff/alert-settings': {
    allowed: 'manageCredit',
    status: 200,
    request: () => ({ method: 'PUT', url: '/bff/alert-settings', body: { lowBalance: 5, keyBudgetPercents: [50, 100] } }),
  },
  'GET /bff/audit-log': { allowed: 'manageMembers', status: 200, request: get('/bff/audit-log') },
  'GET /bff/audit-log/export': { allowed: 'manageMembers', status: 200, request: get('/bff/audit-log/export') },
  'GET /bff/credit-history': { allowed: 'manageCredit', status: 200, request: get('/bff/credit-history') },
  'GET /bff/credit-history/export': { allowed: 'manageCredit', status: 200, request: get('/bff/credit-history/export') },
  'GET /bff/members': { allowed: 'manageMembers', status: 200, request: get('/bff/members') },
  'PUT /bff/members/:personId': {
    allowed: 'manageMembers',
    status: 200,
    request: () => ({ method: 'PUT', url: `/bff/members/${team.memberToChange}`, body: { role: 'billing' } }),
  },
  'DELETE /bff/members/:personId': {
    allowed: 'manageMembers',
    status: 204,
    request: (role) => ({ method: 'DELETE', url: `/bff/members/${team.removableOf[role]}` }),
  },
  'POST /bff/invitations': {
    allowed: 'manageMembers',
    status: 201,
    request: (role) => ({ method: 'POST', url: '/bff/invitations', body: { email: `team-invitee-${role}-${stamp}@example.com`, role: 'developer' } }),
  },
  'POST /bff/invitations/:invitationId/resend': {
    allowed: 'manageMembers',
    status: 200,
    request: () => ({ method: 'POST', url: `/bff/invitations/${team.sharedInvitation}/resend` }),
  },
  'DELETE /bff/invitations/:invitationId': {
    allowed: 'manageMembers',
    status: 204,
    request: (role) => ({ method: 'DELETE', url: `/bff/invitations/${team.invitationOf[role]}` }),
  },
  // A link is a person's own business, whatever their role where they work now: one never mailed opens nothing.
  'POST /bff/invitations/accept': {
    allowed: 'seeOrganization',
    status: 404,
    request: () => ({ method: 'POST', url: '/bff/invitations/accept', body: { token: 'y'.repeat(43) } }),
  },
  'PUT /bff/current-organization': {
    allowed: 'seeOrganization',
    status: 200,
    request: () => ({ method: 'PUT', url: '/bff/current-organization', body: { organizationId: team.organizationId } }),
  },
  'POST /bff/organizations': {
    allowed: 'seeOrganization',
    status: 201,
    request: (role) => ({ method: 'POST', url: '/bff/organizations', body: { name: `Side project of the ${role}` } }),
    restore: switchBackToTeam,
  },
  // The owner is the team's only owner and stays; the others leave, and are put back for the rows after.
  'POST /bff/organizations/:organizationId/leave': {
    allowed: 'seeOrganization',
    status: (role) => (role === 'owner' ? 409 : 200),
    request: () => ({ method: 'POST', url: `/bff/organizations/${team.organizationId}/leave` }),
    restore: async (role) => {
      if (role === 'owner') return;
      await t.testDb.db.insert(memberships).values({ organizationId: team.organizationId, personId: team.personIdOf[role], role });
      await switchBackToTeam(role);
    },
  },
};
const expectedFor = (testCase: TeamCase, role: TeamRole) =>
  can(role, testCase.allowed) ? (typeof testCase.status === 'function' ? testCase.status(role) : testCase.status) : 403;

/** A person who never signs in, a developer in the team, for the rows that change or remove a member. */
async function insertedMember(label: string) {
  const personId = randomUUID();
  await t.testDb.db
    .insert(persons)
    .values({ id: personId, identityId: randomUUID(), email: `team-${label}-${stamp}@example.com`, organizationId: team.organizationId });
  await t.testDb.db.insert(memberships).values({ organizationId: team.organizationId, personId, role: 'developer' });
  return personId;
}

describe('roles in one organisation (owner, admin, developer, billing)', () => {
  beforeAll(async () => {
    const [owner, admin, developer, billing] = await Promise.all(teamRoles.map(() => t.users.signUp()));
    team.people = { owner: owner!, admin: admin!, developer: developer!, billing: billing! };
    team.organizationId = (await asMember('owner', { method: 'GET', url: '/bff/me' })).json().organizationId;
    // A month old, as a team that invites people is: past the first week's cap on invitations.
    await t.testDb.db
      .update(organizations)
      .set({ createdAt: new Date(Date.now() - 30 * 86_400_000) })
      .where(eq(organizations.id, team.organizationId));
    for (const role of ['admin', 'developer', 'billing'] as const) await teams.join(team.people.owner, team.people[role], role);
    const listed: { personId: string; email: string }[] = (await asMember('owner', { method: 'GET', url: '/bff/members' })).json().members;
    team.personIdOf = perRole((role) => listed.find((member) => member.email === team.people[role].email)?.personId ?? '');

    const createKey = async () => (await asMember('owner', { method: 'POST', url: '/bff/publishable-keys', body: teamKeyBody })).json().id as string;
    team.sharedKey = await createKey();
    team.keyOf = perRole(() => '');
    const createSecretKey = async () => (await asMember('owner', { method: 'POST', url: '/bff/secret-keys', body: teamSecretKeyBody })).json().id as string;
    team.sharedSecretKey = await createSecretKey();
    team.secretKeyOf = perRole(() => '');
    const createWebhookEndpoint = async () =>
      (await asMember('owner', { method: 'POST', url: '/bff/webhook-endpoints', body: webhookBody })).json().id as string;
    team.sharedWebhookEndpoint = await createWebhookEndpoint();
    team.webhookEndpointOf = perRole(() => '');
    team.blockOf = perRole(() => '');
    team.removableOf = perRole(() => '');
    team.invitationOf = perRole(() => '');
    for (const [index, role] of teamRoles.entries()) {
      team.keyOf[role] = await createKey();
      team.secretKeyOf[role] = await createSecretKey();
      team.webhookEndpointOf[role] = await createWebhookEndpoint();
      const block = await asMember('owner', { method: 'POST', url: sharedKeyUrl('/blocks'), body: { clientAddress: `198.51.100.${60 + index}` } });
      team.blockOf[role] = block.json().id;
      team.removableOf[role] = await insertedMember(`removable-${role}`);
      const invited = await asMember('owner', {
        method: 'POST',
        url: '/bff/invitations',
        body: { email: `team-revoked-${role}-${stamp}@example.com`, role: 'billing' },
      });
      team.invitationOf[role] = invited.json().invitationId;
    }
    team.memberToChange = await insertedMember('changed');
    team.checkout = (await asMember('owner', { method: 'POST', url: '/bff/stripe/checkout-session', body: { amount: 5 } })).json().checkoutSessionId;
    team.sharedInvitation = (
      await asMember('owner', { method: 'POST', url: '/bff/invitations', body: { email: `team-resent-${stamp}@example.com`, role: 'developer' } })
    ).json().invitationId;

    // What belongs to A's organisation, for the cross-organisation rows.
    team.personOfA = (await as('userA', 'GET', '/bff/members')).json().members.find((member: { email: string }) => member.email === emailOfA).personId;
    team.foreignInvitation = (
      await as('userA', 'POST', '/bff/invitations', { email: `matrix-foreign-${stamp}@example.com`, role: 'developer' })
    ).json().invitationId;
    team.foreignWebhookEndpoint = (await as('userA', 'POST', '/bff/webhook-endpoints', { ...webhookBody, url: 'https://hooks.example.com/foreign' })).json().id;
  }, 60_000);

  it('has a row for every /bff route but the public payment config', () => {
    const registered = [...new Set(t.app.routeTable.filter((route) => route.url.startsWith('/bff/')).map((route) => `${route.method} ${route.url}`))];
    expect(registered.filter((route) => route !== 'GET /bff/config' && !(route in teamCases))).toEqual([]);
  });

  for (const [route, testCase] of Object.entries(teamCases)) {
    it(`${route}: ${teamRoles.map((role) => `${role} ${expectedFor(testCase, role)}`).join(', ')}`, async () => {
      // A row for a route another change has not registered yet is skipped (the row above lists what is registered).
      if (!t.app.routeTable.some((entry) => `${entry.method} ${entry.url}` === route)) return;
      const statuses = {} as Record<TeamRole, number>;
      for (const [index, role] of teamRoles.entries()) {
        const response = await asMember(role, testCase.request(role, index));
        statuses[role] = response.statusCode;
        if (response.statusCode < 400) await testCase.restore?.(role);
      }
      expect(statuses).toEqual(perRole((role) => expectedFor(testCase, role)));
    });
  }

  it("answers 404 for another organisation's members, invitations, keys and the organisation itself, to every role the route allows", async () => {
    const foreign: [Permission, TeamRequest][] = [
      ['manageMembers', { method: 'PUT', url: `/bff/members/${team.personOfA}`, body: { role: 'developer' } }],
      ['manageMembers', { method: 'DELETE', url: `/bff/members/${team.personOfA}` }],
      ['manageMembers', { method: 'DELETE', url: `/bff/invitations/${team.foreignInvitation}` }],
      ['manageMembers', { method: 'POST', url: `/bff/invitations/${team.foreignInvitation}/resend` }],
      ['manageKeys', { method: 'PUT', url: `/bff/publishable-keys/${f.gatewayKeyOfA.id}`, body: teamKeyBody }],
      ['manageKeys', { method: 'GET', url: `/bff/publishable-keys/${f.gatewayKeyOfA.id}/callers` }],
      ['manageKeys', { method: 'DELETE', url: `/bff/publishable-keys/${f.gatewayKeyOfA.id}` }],
      ['manageKeys', { method: 'PUT', url: `/bff/secret-keys/${f.serverKeyOfA.id}`, body: teamSecretKeyBody }],
      ['manageKeys', { method: 'POST', url: `/bff/secret-keys/${f.serverKeyOfA.id}/roll`, body: { overlapHours: 0 } }],
      ['manageKeys', { method: 'DELETE', url: `/bff/secret-keys/${f.serverKeyOfA.id}` }],
      ['manageWebhooks', { method: 'GET', url: `/bff/webhook-endpoints/${team.foreignWebhookEndpoint}/deliveries` }],
      ['manageWebhooks', { method: 'DELETE', url: `/bff/webhook-endpoints/${team.foreignWebhookEndpoint}` }],
      ['seeOrganization', { method: 'PUT', url: '/bff/current-organization', body: { organizationId: organizationOf.userA } }],
      ['seeOrganization', { method: 'POST', url: `/bff/organizations/${organizationOf.userA}/leave` }],
    ];
    const answers: string[] = [];
    const expected: string[] = [];
    for (const role of teamRoles) {
      for (const [permission, request] of foreign) {
        answers.push(`${role} ${request.method} ${request.url}: ${(await asMember(role, request)).statusCode}`);
        expected.push(`${role} ${request.method} ${request.url}: ${can(role, permission) ? 404 : 403}`);
      }
    }
    expect(answers).toEqual(expected);
    // Nothing of A's changed.
    expect((await as('userA', 'GET', '/bff/members')).json().members.map((member: { personId: string }) => member.personId)).toContain(team.personOfA);
    expect((await as('userA', 'GET', '/bff/members')).json().invitations.map((i: { invitationId: string }) => i.invitationId)).toContain(
      team.foreignInvitation,
    );
    expect((await as('userA', 'GET', '/bff/publishable-keys')).json().publishableKeys.map((key: { id: string }) => key.id)).toContain(f.gatewayKeyOfA.id);
    expect((await as('userA', 'GET', '/bff/secret-keys')).json().secretKeys.map((key: { id: string }) => key.id)).toContain(f.serverKeyOfA.id);
  });

  it("a member of both organisations reaches only the current one's keys: A in the team sees the team's, not A's own, until switching back", async () => {
    await teams.join(team.people.owner, { email: emailOfA, cookie: cookies.userA ?? '' }, 'developer');
    const keysOfA = async () => (await as('userA', 'GET', '/bff/publishable-keys')).json().publishableKeys.map((key: { id: string }) => key.id);
    expect(await keysOfA()).toContain(team.sharedKey);
    expect(await keysOfA()).not.toContain(f.gatewayKeyOfA.id);
    expect((await as('userA', 'PUT', `/bff/publishable-keys/${f.gatewayKeyOfA.id}`, teamKeyBody)).statusCode).toBe(404);
    // A developer in the team: its members and credit are out of reach, though A owns another organisation.
    expect((await as('userA', 'GET', '/bff/members')).statusCode).toBe(403);
    expect((await as('userA', 'POST', '/bff/stripe/checkout-session', { amount: 5 })).statusCode).toBe(403);

    expect((await as('userA', 'PUT', '/bff/current-organization', { organizationId: organizationOf.userA })).json()).toMatchObject({ role: 'owner' });
    expect(await keysOfA()).toContain(f.gatewayKeyOfA.id);
    // Leaving the team, which is not the current organisation, leaves A where A is.
    expect((await as('userA', 'POST', `/bff/organizations/${team.organizationId}/leave`)).json()).toMatchObject({ organizationId: organizationOf.userA });
  });

  it('API keys made by each role: an admin key only by an owner or admin, answering the developer API only while its maker may do all it does', async () => {
    const developerRoutes = ['/v1/organization/balance', '/v1/organization/credit-history', '/v1/organization/usage', '/v1/organization/publishable-keys'];
    const made: string[] = [];
    const expected: string[] = [];
    const adminKeyOf = {} as Partial<Record<TeamRole, string>>;
    for (const role of teamRoles) {
      const adminKey = await asMember(role, { method: 'POST', url: '/bff/secret-keys', body: { ...teamSecretKeyBody, scope: 'admin' } });
      const gatewayKey = await asMember(role, { method: 'POST', url: '/bff/secret-keys', body: teamSecretKeyBody });
      const pageKey = await asMember(role, { method: 'POST', url: '/bff/publishable-keys', body: teamKeyBody });
      made.push(`${role}: admin key ${adminKey.statusCode}, gateway key ${gatewayKey.statusCode}, publishable key ${pageKey.statusCode}`);
      const keys = can(role, 'manageKeys') ? 201 : 403;
      expected.push(`${role}: admin key ${canMakeAdminKey(role) ? 201 : 403}, gateway key ${keys}, publishable key ${keys}`);
      if (adminKey.statusCode === 201) adminKeyOf[role] = adminKey.json().value;
    }
    expect(made).toEqual(expected);

    const answers = async (role: TeamRole) => {
      const statuses: number[] = [];
      for (const url of developerRoutes)
        statuses.push((await send({ method: 'GET', url, headers: { authorization: `Bearer ${adminKeyOf[role]}` } })).statusCode);
      return statuses;
    };
    for (const role of ['owner', 'admin'] as const) expect(await answers(role), role).toEqual(developerRoutes.map(() => 200));
    // The admin made a developer: their admin key does no more than a developer may, on any route, until they are an admin again.
    const setAdminRole = (role: TeamRole) => asMember('owner', { method: 'PUT', url: `/bff/members/${team.personIdOf.admin}`, body: { role } });
    expect((await setAdminRole('developer')).statusCode).toBe(200);
    expect(await answers('admin')).toEqual(developerRoutes.map(() => 403));
    expect(await answers('owner')).toEqual(developerRoutes.map(() => 200));
    expect((await setAdminRole('admin')).statusCode).toBe(200);
    expect(await answers('admin')).toEqual(developerRoutes.map(() => 200));
  });

  it('ends with no violation: no 5xx anywhere', () => {
    expect(counts.violations).toEqual([]);
  });
});

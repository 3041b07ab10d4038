import { beforeAll, describe, expect, it } from 'vitest';
import { setupTestApp } from './testing/setup-test-app.js';

const adminEmail = `matrix-admin-${Date.now()}@example.com`;
const t = setupTestApp({ SYSTEM_ADMIN_EMAILS: adminEmail }, { identity: true });

type Role = 'anonymous' | 'unverified' | 'userB' | 'admin' | 'userA';
/** Roles run in this order, so the owner's destructive call (DELETE) comes last. */
const roles: Role[] = ['anonymous', 'unverified', 'userB', 'admin', 'userA'];
type Case = { url: (keyId: string) => string; body?: unknown; expect: Record<Role, number> };

const signedIn = (status: number) => ({ anonymous: 401, unverified: 401, userB: status, admin: status, userA: status });
const ownerOnly = (status: number) => ({ anonymous: 401, unverified: 401, userB: 404, admin: 404, userA: status });
const adminOnly = { anonymous: 401, unverified: 401, userB: 403, admin: 200, userA: 403 };
const keyBody = { name: 'Matrix', budget: 5, budgetType: 'monthly', allowedOrigins: ['https://matrix.example.com'] };

/**
 * Every /bff and /admin route of the app × every kind of caller. The table must name every route
 * the app registers: a new route without an entry here fails the first test.
 */
const matrix: Record<string, Case> = {
  'GET /bff/config': { url: () => '/bff/config', expect: { anonymous: 200, unverified: 200, userB: 200, admin: 200, userA: 200 } },
  'GET /bff/me': { url: () => '/bff/me', expect: signedIn(200) },
  'POST /bff/stripe/checkout-session': { url: () => '/bff/stripe/checkout-session', body: { amount: 5 }, expect: signedIn(200) },
  'POST /bff/stripe/customer-portal-session': { url: () => '/bff/stripe/customer-portal-session', expect: signedIn(200) },
  'GET /bff/publishable-keys': { url: () => '/bff/publishable-keys', expect: signedIn(200) },
  'POST /bff/publishable-keys': { url: () => '/bff/publishable-keys', body: keyBody, expect: signedIn(201) },
  'PUT /bff/publishable-keys/:publishableKeyId': { url: (id) => `/bff/publishable-keys/${id}`, body: keyBody, expect: ownerOnly(200) },
  'DELETE /bff/publishable-keys/:publishableKeyId': { url: (id) => `/bff/publishable-keys/${id}`, expect: ownerOnly(204) },
  'GET /bff/chat-completions': { url: () => '/bff/chat-completions', expect: signedIn(200) },
  'POST /bff/feedback': { url: () => '/bff/feedback', body: { type: 'feature_request', description: 'More charts' }, expect: signedIn(201) },
  'GET /admin/persons': { url: () => '/admin/persons', expect: adminOnly },
  'GET /admin/feedback': { url: () => '/admin/feedback', expect: adminOnly },
};

const cookies = {} as Record<Role, string | undefined>;
let keyOfA = '';

beforeAll(async () => {
  cookies.anonymous = undefined;
  cookies.unverified = (await t.users.signUp({ verified: false })).cookie;
  cookies.userA = (await t.users.signUp()).cookie;
  cookies.userB = (await t.users.signUp()).cookie;
  cookies.admin = (await t.users.signUp({ email: adminEmail })).cookie;
  const created = await t.app.inject({ method: 'POST', url: '/bff/publishable-keys', headers: { cookie: cookies.userA }, payload: keyBody });
  keyOfA = created.json().id;
}, 60_000);

describe('authorisation matrix', () => {
  it('covers every /bff and /admin route the app registers', () => {
    const registered = t.app.routeTable
      .filter((route) => route.url.startsWith('/bff') || route.url.startsWith('/admin'))
      .map((route) => `${route.method} ${route.url}`)
      .sort();
    expect(registered).toEqual(Object.keys(matrix).sort());
  });

  for (const [route, testCase] of Object.entries(matrix)) {
    it(`${route}: ${roles.map((role) => `${role} ${testCase.expect[role]}`).join(', ')}`, async () => {
      const method = route.split(' ')[0] as 'GET' | 'POST' | 'PUT' | 'DELETE';
      const statuses = {} as Record<Role, number>;
      for (const role of roles) {
        const cookie = cookies[role];
        const response = await t.app.inject({
          method,
          url: testCase.url(keyOfA),
          headers: cookie ? { cookie } : {},
          ...(testCase.body ? { payload: testCase.body as object } : {}),
        });
        statuses[role] = response.statusCode;
      }
      expect(statuses).toEqual(testCase.expect);
    });
  }
});

import { count } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { organizations, persons } from '../../db/schema/index.js';
import { setupTestApp } from '../../testing/setup-test-app.js';

const adminEmail = `root-${Date.now()}@example.com`;
const t = setupTestApp({ SYSTEM_ADMIN_EMAILS: `other@example.com, ${adminEmail.toUpperCase()}` }, { identity: true });

const me = (cookie?: string) => t.app.inject({ method: 'GET', url: '/bff/me', headers: cookie ? { cookie } : {} });

describe('GET /bff/me and session auth', () => {
  it('answers 401 problem+json without a session, and with a forged cookie', async () => {
    for (const response of [await me(), await me('ory_kratos_session=ory_st_forged')]) {
      expect(response.statusCode).toBe(401);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({ status: 401, title: 'Unauthorized', detail: 'Sign in to continue.' });
    }
  });

  it('answers 401 EmailNotVerified with the address while the e-mail is unverified', async () => {
    const user = await t.users.signUp({ verified: false });
    const response = await me(user.cookie);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'EmailNotVerified', email: user.email });
  });

  it('provisions the person and an organisation they own, named after the e-mail, on first sight', async () => {
    const user = await t.users.signUp({ email: `grace.hopper-${Date.now()}@example.com` });
    const response = await me(user.cookie);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      email: user.email,
      organizationName: "Grace Hopper's organisation",
      systemAdmin: false,
      organizationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      remainingSpendAmount: 0,
      owedAmount: 0,
      promotionalCreditAmount: 0,
      nextCreditExpiry: null,
      organizationCheckoutSessions: [],
      role: 'owner',
      organizations: [{ organizationId: body.organizationId, organizationName: "Grace Hopper's organisation", role: 'owner' }],
    });
    expect((await me(user.cookie)).json().organizationId).toBe(body.organizationId);
  });

  it('makes a person from SYSTEM_ADMIN_EMAILS a system admin, whatever the case', async () => {
    const admin = await t.users.signUp({ email: adminEmail });
    expect((await me(admin.cookie)).json().systemAdmin).toBe(true);
  });

  it('creates exactly one person and one organisation under 20 concurrent first requests', async () => {
    const user = await t.users.signUp();
    const [personsBefore] = await t.testDb.db.select({ n: count() }).from(persons);
    const [organizationsBefore] = await t.testDb.db.select({ n: count() }).from(organizations);
    const responses = await Promise.all(Array.from({ length: 20 }, () => me(user.cookie)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
    expect(new Set(responses.map((response) => response.json().organizationId)).size).toBe(1);
    const [personsAfter] = await t.testDb.db.select({ n: count() }).from(persons);
    const [organizationsAfter] = await t.testDb.db.select({ n: count() }).from(organizations);
    expect((personsAfter?.n ?? 0) - (personsBefore?.n ?? 0)).toBe(1);
    expect((organizationsAfter?.n ?? 0) - (organizationsBefore?.n ?? 0)).toBe(1);
  });
});

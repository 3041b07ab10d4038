import type { CreditHistoryEntry } from '@meterway/contracts';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEntries } from '../../db/schema/index.js';
import { expireGrants } from '../../domain/credit/expire-grants.js';
import { setupTestApp, type TestMember } from '../../testing/setup-test-app.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';

const adminEmail = `admin-grants-${Date.now()}@example.com`;
const t = setupTestApp({ SYSTEM_ADMIN_EMAILS: adminEmail }, { identity: true });

type User = TestMember;

const signUp = (email?: string) => t.signUpMember(email ? { email } : {});

let admin: User;
let user: User;
beforeAll(async () => {
  admin = await signUp(adminEmail);
  user = await signUp();
}, 60_000);

const grant = (as: User, personId: string, payload: unknown) =>
  t.app.inject({ method: 'POST', url: `/admin/persons/${personId}/credit-grants`, payload: payload as object, headers: { cookie: as.cookie } });
const me = async (as: User) => (await t.app.inject({ method: 'GET', url: '/bff/me', headers: { cookie: as.cookie } })).json();
const history = async (as: User): Promise<CreditHistoryEntry[]> =>
  (await t.app.inject({ method: 'GET', url: '/bff/credit-history', headers: { cookie: as.cookie } })).json().items;

// Far enough ahead that the grants are live whenever the test runs.
const expiresOn = '2099-12-31';
const expiresAt = '2100-01-01T00:00:00.000Z';

describe('POST /admin/persons/:personId/credit-grants', () => {
  it("grants promotional credit to the person's organisation: the balance, /bff/me, the history and the audit log show it", async () => {
    const response = await grant(admin, user.personId, { amount: 25, note: 'trial', expiresOn });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({ organizationId: user.organizationId, amount: 25, note: 'trial', expiresAt, balance: 25 });
    await grant(admin, user.personId, { amount: 5.5, note: 'support', expiresOn: '2099-06-30' });

    expect(await me(user)).toMatchObject({ remainingSpendAmount: 30.5, promotionalCreditAmount: 30.5, nextCreditExpiry: '2099-07-01T00:00:00.000Z' });
    expect((await history(user)).map(({ kind, amount, balanceAfter, note, expiresAt }) => ({ kind, amount, balanceAfter, note, expiresAt }))).toEqual([
      { kind: 'grant', amount: 5.5, balanceAfter: 30.5, note: 'support', expiresAt: '2099-07-01T00:00:00.000Z' },
      { kind: 'grant', amount: 25, balanceAfter: 25, note: 'trial', expiresAt },
    ]);
    const audit = await t.testDb.db.select().from(auditEntries).where(eq(auditEntries.organizationId, user.organizationId));
    expect(audit).toContainEqual(
      expect.objectContaining({
        actorEmail: adminEmail,
        action: 'credit.granted',
        target: '$25.00',
        changes: expect.objectContaining({ note: { to: 'trial' } }),
      }),
    );
    await expectLedgerConsistent(t.testDb.db);
  });

  it('shows an expired grant as an expiry line with its note and expiry, and /bff/me the next one', async () => {
    const other = await signUp();
    await grant(admin, other.personId, { amount: 2, note: 'trial', expiresOn: '2099-01-31' });
    await grant(admin, other.personId, { amount: 3, note: 'support', expiresOn: '2099-03-31' });
    await expireGrants(t.testDb.db, new Date('2099-02-01T00:00:00.000Z'));

    expect(await me(other)).toMatchObject({ remainingSpendAmount: 3, promotionalCreditAmount: 3, nextCreditExpiry: '2099-04-01T00:00:00.000Z' });
    expect((await history(other))[0]).toMatchObject({
      kind: 'grant_expiry',
      amount: -2,
      balanceAfter: 3,
      note: 'trial',
      expiresAt: '2099-02-01T00:00:00.000Z',
    });
    const csv = (await t.app.inject({ method: 'GET', url: '/bff/credit-history/export', headers: { cookie: other.cookie } })).body;
    expect(csv).toContain(',grant_expiry,-2,3,trial,2099-02-01T00:00:00.000Z,');

    await expireGrants(t.testDb.db, new Date('2099-04-01T00:00:00.000Z'));
    expect(await me(other)).toMatchObject({ remainingSpendAmount: 0, promotionalCreditAmount: 0, nextCreditExpiry: null });
    await expectLedgerConsistent(t.testDb.db);
  });

  it('refuses a non-admin (403), an unknown person (404) and a bad grant with a clear message, changing nothing', async () => {
    expect((await grant(user, user.personId, { amount: 5, note: 'self-service', expiresOn })).statusCode).toBe(403);
    expect((await grant(admin, '00000000-0000-4000-8000-000000000000', { amount: 5, note: 'trial', expiresOn })).statusCode).toBe(404);
    const bad = async (payload: unknown) => {
      const response = await grant(admin, admin.personId, payload);
      expect(response.statusCode, response.body).toBe(400);
      return JSON.stringify(response.json());
    };
    expect(await bad({ amount: 0, note: 'trial', expiresOn })).toContain('amount must be more than $0');
    expect(await bad({ amount: 1.234, note: 'trial', expiresOn })).toContain('amount must be whole cents');
    expect(await bad({ amount: 5, note: '  ', expiresOn })).toContain('note is required');
    expect(await bad({ amount: 5, note: 'trial', expiresOn: '31/12/2099' })).toContain('expiresOn must be a date, YYYY-MM-DD');
    expect(await bad({ amount: 5, note: 'trial', expiresOn: '2020-01-01' })).toContain('A promotional grant must expire in the future');
    expect(await me(admin)).toMatchObject({ remainingSpendAmount: 0, promotionalCreditAmount: 0, nextCreditExpiry: null });
  });
});

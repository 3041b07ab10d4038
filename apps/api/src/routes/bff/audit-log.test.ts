import { randomUUID } from 'node:crypto';
import type { AuditChanges, AuditEntry } from '@meterway/contracts';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, publishableKeys } from '../../db/schema/index.js';
import { saveAlertSettings } from '../../domain/alerts/alert-settings.js';
import { grantCredit } from '../../domain/credit/grant-credit.js';
import { updateKey } from '../../domain/keys/publishable-keys.js';
import { settleSandbox } from '../../domain/payments/sandbox-checkout.js';
import { reverseSandboxPayment } from '../../domain/payments/sandbox-reversals.js';
import { setupTestApp, type TestMember } from '../../testing/setup-test-app.js';

const t = setupTestApp({}, { identity: true });

type Json = Record<string, any>;
type User = TestMember;
type Page = { items: AuditEntry[]; pagination: { nextPageToken: string | null; previousPageToken: string | null } };

const call = (user: User, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Json) =>
  t.app.inject({ method, url, headers: { cookie: user.cookie }, ...(payload ? { payload } : {}) });
const log = (user: User, query: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: '/bff/audit-log', query, headers: { cookie: user.cookie } });
const exportOf = (user: User, query: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: '/bff/audit-log/export', query, headers: { cookie: user.cookie } });

async function page(user: User, query: Record<string, string> = {}): Promise<Page> {
  const response = await log(user, query);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** Every entry of the user's organisation with this action, newest first. */
const entries = async (user: User, action: string) => (await page(user, { action })).items;

/** A signed-up person, provisioned, owning their own organisation. */
const signUp = () => t.signUpMember();

const keyBody = { name: 'Storefront', budget: 10, budgetType: 'monthly', allowedOrigins: ['https://shop.example.com'] };
const createKey = async (user: User, body: Json = keyBody) => (await call(user, 'POST', '/bff/publishable-keys', body)).json();
const auditRows = (organizationId: string) => t.testDb.db.select().from(auditEntries).where(eq(auditEntries.organizationId, organizationId));

let owner: User;
let other: User;
beforeAll(async () => {
  owner = await signUp();
  other = await signUp();
}, 60_000);

describe('the audit log records each change with who made it', () => {
  it('a key created, edited (only the fields that changed, before → after), rolled, its callers blocked and lifted, deleted with a reason', async () => {
    const key = await createKey(owner);
    const [created] = await entries(owner, 'key.created');
    expect(created).toEqual({
      id: expect.any(String),
      createdAt: expect.any(String),
      actorEmail: owner.email,
      action: 'key.created',
      target: 'Storefront',
      changes: {
        name: { to: 'Storefront' },
        budget: { to: 10 },
        allowedOrigins: { to: ['https://shop.example.com'] },
        allowedModels: { to: null },
        maxOutputTokensPerCall: { to: null },
        perClientLimits: { to: { requestsPerMinute: 30, spendPerDay: 1 } },
        perEndUserLimits: { to: { requestsPerMinute: null, spendPerDay: null, spendPerMonth: null } },
        endUserTokens: { to: null },
        responseCacheSeconds: { to: null },
        responseCacheShared: { to: false },
      },
    });

    const edited = await call(owner, 'PUT', `/bff/publishable-keys/${key.id}`, {
      ...keyBody,
      budget: 25.5,
      allowedOrigins: ['https://shop.example.com', 'localhost'],
    });
    expect(edited.statusCode).toBe(200);
    const [updated] = await entries(owner, 'key.updated');
    expect(updated).toMatchObject({ actorEmail: owner.email, target: 'Storefront' });
    expect(updated!.changes).toEqual({
      budget: { from: 10, to: 25.5 },
      allowedOrigins: { from: ['https://shop.example.com'], to: ['https://shop.example.com', 'localhost'] },
    });

    // Nested controls are recorded whole, before → after; a save that changes nothing records nothing.
    await call(owner, 'PUT', `/bff/publishable-keys/${key.id}`, {
      ...keyBody,
      name: 'Shop',
      budget: 25.5,
      allowedOrigins: [],
      perClientLimits: { spendPerDay: 2 },
    });
    await call(owner, 'PUT', `/bff/publishable-keys/${key.id}`, { ...keyBody, name: 'Shop', budget: 25.5, allowedOrigins: [] });
    const updates = await entries(owner, 'key.updated');
    expect(updates).toHaveLength(2);
    expect(updates[0]!.changes).toEqual({
      name: { from: 'Storefront', to: 'Shop' },
      allowedOrigins: { from: ['https://shop.example.com', 'localhost'], to: [] },
      perClientLimits: { from: { requestsPerMinute: 30, spendPerDay: 1 }, to: { requestsPerMinute: 30, spendPerDay: 2 } },
    });

    expect((await call(owner, 'POST', `/bff/publishable-keys/${key.id}/roll`, { overlapHours: 6 })).statusCode).toBe(200);
    expect(await entries(owner, 'key.rolled')).toMatchObject([{ actorEmail: owner.email, target: 'Shop', changes: { overlapHours: { to: 6 } } }]);

    const address = (await call(owner, 'POST', `/bff/publishable-keys/${key.id}/blocks`, { clientAddress: '198.51.100.7' })).json();
    await call(owner, 'POST', `/bff/publishable-keys/${key.id}/blocks`, { endUser: 'mallory' });
    expect((await call(owner, 'DELETE', `/bff/publishable-keys/${key.id}/blocks/${address.id}`)).statusCode).toBe(204);
    expect((await entries(owner, 'key.blocked_caller')).map((entry) => entry.changes)).toEqual(
      expect.arrayContaining([{ clientAddress: { to: '198.51.100.7' } }, { endUser: { to: 'mallory' } }]),
    );
    expect(await entries(owner, 'key.unblocked_caller')).toMatchObject([
      { actorEmail: owner.email, target: 'Shop', changes: { clientAddress: { from: '198.51.100.7' } } },
    ]);

    const deleted = await call(owner, 'DELETE', `/bff/publishable-keys/${key.id}`, { reason: '  Leaked in a public repository.  ' });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(await entries(owner, 'key.deleted')).toMatchObject([
      { actorEmail: owner.email, target: 'Shop', changes: { reason: { to: 'Leaked in a public repository.' } } },
    ]);
  });

  it('a key deleted without a body, or with a blank reason, records no reason; a reason over 5000 characters is refused and deletes nothing', async () => {
    const user = await signUp();
    const first = await createKey(user, { ...keyBody, name: 'First' });
    const second = await createKey(user, { ...keyBody, name: 'Second' });
    const third = await createKey(user, { ...keyBody, name: 'Third' });
    expect((await call(user, 'DELETE', `/bff/publishable-keys/${first.id}`)).statusCode).toBe(204);
    expect((await call(user, 'DELETE', `/bff/publishable-keys/${second.id}`, { reason: '   ' })).statusCode).toBe(204);

    const tooLong = await call(user, 'DELETE', `/bff/publishable-keys/${third.id}`, { reason: 'x'.repeat(5001) });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json()).toMatchObject({ errors: [{ field: 'reason', message: 'Maximum length is 5000' }] });
    expect((await call(user, 'GET', '/bff/publishable-keys')).json().publishableKeys.map((key: Json) => key.name)).toEqual(['Third']);

    const deletions = await entries(user, 'key.deleted');
    expect(deletions.map((entry) => [entry.target, entry.changes])).toEqual(
      expect.arrayContaining([
        ['First', {}],
        ['Second', {}],
      ]),
    );
    expect(deletions).toHaveLength(2);
  });

  it('alert settings, before → after', async () => {
    const user = await signUp();
    const put = (payload: Json) => call(user, 'PUT', '/bff/alert-settings', payload);
    expect((await put({ lowBalance: 12.5, keyBudgetPercents: [50, 80, 100] })).statusCode).toBe(200);
    expect((await put({ lowBalance: 12.5, keyBudgetPercents: [90, 25] })).statusCode).toBe(200);
    expect((await put({ lowBalance: 12.5, keyBudgetPercents: [25, 90] })).statusCode).toBe(200);
    expect((await entries(user, 'alerts.updated')).map((entry) => entry.changes)).toEqual([
      { keyBudgetPercents: { from: [50, 80, 100], to: [25, 90] } },
      { lowBalance: { from: 5, to: 12.5 } },
    ]);
    expect((await entries(user, 'alerts.updated'))[0]).toMatchObject({ actorEmail: user.email, target: 'alert settings' });
  });

  it('credit: a top-up by the person who paid it; a grant, a refund and a dispute by the system', async () => {
    const user = await signUp();
    const checkout = (await call(user, 'POST', '/bff/stripe/checkout-session', { amount: 5 })).json();
    const paid = await t.app.inject({
      method: 'POST',
      url: `/sandbox/checkout-sessions/${checkout.checkoutSessionId}/confirm`,
      payload: { clientSecret: checkout.clientSecret, cardNumber: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' },
    });
    expect(paid.statusCode).toBe(202);
    await settleSandbox(t.testDb.db, new Date());
    expect(await entries(user, 'credit.added')).toMatchObject([
      { actorEmail: user.email, target: '$5.00', changes: { balance: { from: 0, to: 5 }, checkoutSessionId: { to: checkout.checkoutSessionId } } },
    ]);

    await grantCredit(t.testDb.db, { email: user.email, dollars: 2.5, reason: 'launch promotion' });
    expect(await entries(user, 'credit.granted')).toMatchObject([
      { actorEmail: 'system', target: '$2.50', changes: { balance: { from: 5, to: 7.5 }, reason: { to: 'launch promotion' } } },
    ]);
    // A take-back past zero is refused and leaves no entry.
    await expect(grantCredit(t.testDb.db, { email: user.email, dollars: -100 })).rejects.toThrow('below zero');
    expect(await entries(user, 'credit.granted')).toHaveLength(1);

    const base = { organizationId: user.organizationId, payment: { kind: 'top_up' as const, checkoutSessionId: checkout.checkoutSessionId } };
    await reverseSandboxPayment(t.testDb.db, { ...base, now: new Date(), action: 'refund', amount: 1 });
    expect(await entries(user, 'credit.refunded')).toMatchObject([
      { actorEmail: 'system', changes: { checkoutSessionId: { to: checkout.checkoutSessionId } } },
    ]);
    await reverseSandboxPayment(t.testDb.db, { ...base, now: new Date(), action: 'dispute' });
    await reverseSandboxPayment(t.testDb.db, { ...base, now: new Date(), action: 'win' });
    const disputes = await entries(user, 'credit.disputed');
    expect(disputes.map((entry) => [entry.actorEmail, entry.changes.dispute?.to])).toEqual([
      ['system', 'won'],
      ['system', 'open'],
    ]);
    // Taken back, then given back in full: the balance the refund left.
    const refunded = (await entries(user, 'credit.refunded'))[0]!;
    expect(disputes[1]!.changes.balance!.from).toBe(refunded.changes.balance!.to);
    expect(disputes[0]!.changes.balance!.to).toBe(refunded.changes.balance!.to);
  });
});

describe('an entry is written in the transaction of its change', () => {
  it('a refused or unknown change leaves no entry', async () => {
    const user = await signUp();
    const key = await createKey(user);
    const before = (await auditRows(user.organizationId)).length;
    expect((await call(user, 'PUT', `/bff/publishable-keys/${key.id}`, { ...keyBody, budget: -1 })).statusCode).toBe(400);
    expect((await call(user, 'PUT', `/bff/publishable-keys/${key.id}`, { ...keyBody, allowedModels: ['no-such-model'] })).statusCode).toBe(400);
    expect((await call(user, 'PUT', `/bff/publishable-keys/${randomUUID()}`, keyBody)).statusCode).toBe(404);
    expect((await call(user, 'POST', `/bff/publishable-keys/${randomUUID()}/roll`, { overlapHours: 1 })).statusCode).toBe(404);
    const unknown = await call(user, 'DELETE', `/bff/publishable-keys/${randomUUID()}`, { reason: 'gone' });
    expect(unknown.statusCode, unknown.body).toBe(404);
    expect((await call(user, 'DELETE', `/bff/publishable-keys/${key.id}/blocks/${randomUUID()}`)).statusCode).toBe(404);
    // Another organisation's key is as unknown.
    expect((await call(other, 'PUT', `/bff/publishable-keys/${key.id}`, { ...keyBody, budget: 99 })).statusCode).toBe(404);
    const othersDelete = await call(other, 'DELETE', `/bff/publishable-keys/${key.id}`);
    expect(othersDelete.statusCode, othersDelete.body).toBe(404);
    await call(user, 'POST', `/bff/publishable-keys/${key.id}/blocks`, { endUser: 'eve' });
    expect((await call(user, 'POST', `/bff/publishable-keys/${key.id}/blocks`, { endUser: 'eve' })).statusCode).toBe(409);
    expect((await call(user, 'PUT', '/bff/alert-settings', { lowBalance: -1, keyBudgetPercents: [] })).statusCode).toBe(400);
    expect((await auditRows(user.organizationId)).map((row) => row.action)).toHaveLength(before + 1);
    expect(await auditRows(other.organizationId)).toEqual([]);
  });

  it('an entry that cannot be written undoes its change', async () => {
    const user = await signUp();
    const key = await createKey(user);
    // An actor who is no person: the entry's foreign key fails, after the change was made in the same transaction.
    const ghost = { organizationId: user.organizationId, personId: randomUUID(), email: 'ghost@example.com' };
    await expect(updateKey(t.testDb.db, ghost, key.id, { ...keyBody, budgetType: 'monthly', budget: 99 }, new Date())).rejects.toThrow();
    const [row] = await t.testDb.db.select().from(publishableKeys).where(eq(publishableKeys.id, key.id));
    expect(row).toMatchObject({ spendLimitNanos: 10_000_000_000n, version: 0 });
    await expect(saveAlertSettings(t.testDb.db, ghost, { lowBalance: 42, keyBudgetPercents: [] }, new Date())).rejects.toThrow();
    expect((await call(user, 'GET', '/bff/alert-settings')).json()).toEqual({ lowBalance: 5, keyBudgetPercents: [50, 80, 100] });
  });
});

describe('GET /bff/audit-log', () => {
  let busy: User;
  /** The busy organisation's entries as inserted: five actions by two people, three to a millisecond. */
  let inserted: (typeof auditEntries.$inferInsert & { id: string; createdAt: Date })[];
  const base = Date.parse('2026-05-01T10:00:00.000Z');

  beforeAll(async () => {
    busy = await signUp();
    inserted = Array.from({ length: 25 }, (_, i) => ({
      id: randomUUID(),
      organizationId: busy.organizationId,
      actorPersonId: i % 5 === 0 ? null : busy.personId,
      actorEmail: i % 5 === 0 ? 'system' : i % 2 === 0 ? busy.email : 'Colleague@Example.com',
      action: i % 5 === 0 ? 'credit.added' : 'key.updated',
      target: `Key ${i}`,
      changes: { budget: { from: i, to: i + 1 } },
      createdAt: new Date(base + Math.floor(i / 3)),
    }));
    await t.testDb.db.insert(auditEntries).values(inserted);
  }, 60_000);

  const byKeyset = (x: { createdAt: Date; id: string }, y: { createdAt: Date; id: string }) =>
    x.createdAt.getTime() - y.createdAt.getTime() || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
  const ordered = (rows: typeof inserted, asc: boolean) => {
    const sorted = [...rows].sort(byKeyset).map((row) => row.id);
    return asc ? sorted : sorted.reverse();
  };

  it('pages newest first by nextPageToken and back by previousPageToken, and oldest first with asc', async () => {
    for (const asc of [false, true]) {
      const seen: string[] = [];
      const pages: Page[] = [];
      let query: Record<string, string> = { limit: '7', asc: String(asc) };
      for (;;) {
        const current = await page(busy, query);
        pages.push(current);
        seen.push(...current.items.map((item) => item.id));
        if (!current.pagination.nextPageToken) break;
        query = { limit: '7', asc: String(asc), nextPageToken: current.pagination.nextPageToken };
      }
      expect(seen).toEqual(ordered(inserted, asc));
      expect(pages).toHaveLength(4);
      expect(pages[0]!.pagination.previousPageToken).toBeNull();
      const back = await page(busy, { limit: '7', asc: String(asc), previousPageToken: pages[2]!.pagination.previousPageToken! });
      expect(back.items).toEqual(pages[1]!.items);
    }
    expect((await page(busy)).items[0]).toEqual({
      id: ordered(inserted, false)[0],
      createdAt: new Date(base + 8).toISOString(),
      actorEmail: expect.any(String),
      action: expect.any(String),
      target: expect.stringMatching(/^Key \d+$/),
      changes: { budget: { from: expect.any(Number), to: expect.any(Number) } },
    });
  });

  it('filters by actor (exact e-mail, any case) and by action, each and together', async () => {
    const ids = async (query: Record<string, string>) => (await page(busy, query)).items.map((item) => item.id);
    const colleague = inserted.filter((row) => row.actorEmail === 'Colleague@Example.com');
    expect(await ids({ actorEmail: 'colleague@example.COM' })).toEqual(ordered(colleague, false));
    expect(await ids({ actorEmail: ' Colleague@Example.com ' })).toEqual(ordered(colleague, false));
    expect(await ids({ actorEmail: 'colleague@example' })).toEqual([]);
    expect(await ids({ action: 'credit.added' })).toEqual(
      ordered(
        inserted.filter((row) => row.action === 'credit.added'),
        false,
      ),
    );
    expect(await ids({ action: 'credit.added', actorEmail: 'system' })).toHaveLength(5);
    expect(await ids({ action: 'key.updated', actorEmail: 'system' })).toEqual([]);
    expect(await ids({ action: 'member.invited' })).toEqual([]);
  });

  it('holds a page token to the filter and order it was handed out with', async () => {
    const first = await page(busy, { limit: '2', action: 'key.updated' });
    const token = first.pagination.nextPageToken!;
    expect((await log(busy, { limit: '2', action: 'key.updated', nextPageToken: token })).statusCode).toBe(200);
    const others: Record<string, string>[] = [{ action: 'credit.added' }, { actorEmail: busy.email }, {}, { action: 'key.updated', asc: 'true' }];
    for (const query of others) {
      const response = await log(busy, { limit: '2', ...query, nextPageToken: token });
      expect(response.statusCode).toBe(400);
      expect(response.json().detail).toBe('Invalid page token.');
    }
    // Another organisation's owner cannot page on with it either.
    expect((await log(other, { limit: '2', action: 'key.updated', nextPageToken: token })).statusCode).toBe(400);
  });

  it.each([
    ['action', 'key.exploded', /^action must be one of key\.created, /],
    ['actorEmail', 'x'.repeat(101), /^actorEmail must be at most 100 characters$/],
    ['limit', '101', /^limit must be at most 100$/],
  ])('refuses %s=%s with a 400 naming the field', async (field, value, message) => {
    const response = await log(busy, { [field]: value });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ status: 400, errors: [{ field, message: expect.stringMatching(message) }] });
  });

  it('shows each organisation only its own entries, whatever the filter', async () => {
    const theirs = await page(other, { actorEmail: busy.email });
    expect(theirs.items).toEqual([]);
    const all = await page(other);
    expect(all.items.every((item) => item.actorEmail !== busy.email && item.actorEmail !== owner.email)).toBe(true);
    expect(await entries(other, 'credit.added')).toEqual([]);
  });

  it('is for owners and admins: a developer or billing member is refused with 403', async () => {
    const member = await signUp();
    for (const role of ['admin', 'developer', 'billing'] as const) {
      await t.setRole(member, role);
      const expected = role === 'admin' ? 200 : 403;
      expect((await log(member)).statusCode, role).toBe(expected);
      expect((await exportOf(member)).statusCode, role).toBe(expected);
    }
  });
});

describe('GET /bff/audit-log/export', () => {
  const header = 'ID,Created at,Actor e-mail,Action,Target,Changes\r\n';

  it('sends the entries as CSV, newest first, the changes as JSON, with the filters and order of the list', async () => {
    const user = await signUp();
    const at = Date.parse('2026-06-01T08:00:00.000Z');
    const made: { action: string; target: string; changes: AuditChanges }[] = [
      { action: 'key.created', target: '=HYPERLINK("https://evil.example")', changes: { name: { to: 'x, "y"' } } },
      { action: 'key.updated', target: 'Shop', changes: { budget: { from: 1, to: 2 } } },
      { action: 'alerts.updated', target: 'alert settings', changes: {} },
    ];
    const rows = made.map((row, i) => ({
      id: `00000000-0000-4000-8000-00000000000${i}`,
      organizationId: user.organizationId,
      actorPersonId: user.personId,
      actorEmail: user.email,
      createdAt: new Date(at + i * 1000),
      ...row,
    }));
    await t.testDb.db.insert(auditEntries).values(rows);

    const response = await exportOf(user);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="audit-log-${new Date().toISOString().slice(0, 10)}.csv"`);
    expect(response.headers['x-total-count']).toBe('3');
    expect(response.body).toBe(
      header +
        `00000000-0000-4000-8000-000000000002,2026-06-01T08:00:02.000Z,${user.email},alerts.updated,alert settings,{}\r\n` +
        `00000000-0000-4000-8000-000000000001,2026-06-01T08:00:01.000Z,${user.email},key.updated,Shop,"{""budget"":{""from"":1,""to"":2}}"\r\n` +
        `00000000-0000-4000-8000-000000000000,2026-06-01T08:00:00.000Z,${user.email},key.created,"'=HYPERLINK(""https://evil.example"")","{""name"":{""to"":""x, \\""y\\""""}}"\r\n`,
    );

    const filtered = await exportOf(user, { action: 'key.updated', actorEmail: user.email.toUpperCase() });
    expect(filtered.headers['x-total-count']).toBe('1');
    expect(
      filtered.body
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',')[0]),
    ).toEqual(['00000000-0000-4000-8000-000000000001']);
    const oldestFirst = await exportOf(user, { asc: 'true' });
    expect(
      oldestFirst.body
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',')[0]),
    ).toEqual(rows.map((row) => row.id));

    const ofOther = await exportOf(other, { actorEmail: user.email });
    expect(ofOther.statusCode).toBe(200);
    expect(ofOther.headers['x-total-count']).toBe('0');
    expect(ofOther.body).toBe(header);
  });
});

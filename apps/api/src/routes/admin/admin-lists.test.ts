import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import { feedback, memberships, organizations, persons } from '../../db/schema/index.js';
import { takeBack } from '../../domain/credit/ledger.js';
import { setupTestApp } from '../../testing/setup-test-app.js';

const adminEmail = `admin-lists-${Date.now()}@example.com`;
const t = setupTestApp({ SYSTEM_ADMIN_EMAILS: adminEmail }, { identity: true });

type Keyed = { id: string; createdAt: Date };
type PageBody = { items: { id: string }[]; pagination: { nextPageToken: string | null; previousPageToken: string | null } };

let admin = '';
let user = '';
let adminPersonId = '';
const byKeyset = (x: Keyed, y: Keyed) => x.createdAt.getTime() - y.createdAt.getTime() || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);

/** Each person's organisations and roles as the database has them, oldest membership first. */
async function organizationsByPerson() {
  const rows = await t.testDb.db
    .select({ personId: memberships.personId, organizationId: organizations.id, organizationName: organizations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .orderBy(asc(memberships.createdAt), asc(organizations.id));
  return (personId: string) => rows.filter((row) => row.personId === personId).map(({ personId: _, ...organization }) => organization);
}

const get = (cookie: string, url: string, query: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, query, headers: { cookie } });

async function page(url: string, query: Record<string, string>): Promise<PageBody> {
  const response = await get(admin, url, query);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

/** Pages forward to the end and back to the start; every page must equal its slice of `expected`. */
async function walk(url: string, query: Record<string, string>, expected: unknown[], limit: number) {
  const slices = Array.from({ length: Math.ceil(expected.length / limit) }, (_, i) => expected.slice(i * limit, (i + 1) * limit));
  let current = await page(url, { ...query, limit: String(limit) });
  expect(current.items).toEqual(slices[0]);
  expect(current.pagination.previousPageToken).toBeNull();
  for (let i = 1; i < slices.length; i++) {
    current = await page(url, { ...query, limit: String(limit), nextPageToken: current.pagination.nextPageToken! });
    expect(current.items).toEqual(slices[i]);
  }
  expect(current.pagination.nextPageToken).toBeNull();
  for (let i = slices.length - 2; i >= 0; i--) {
    current = await page(url, { ...query, limit: String(limit), previousPageToken: current.pagination.previousPageToken! });
    expect(current.items).toEqual(slices[i]);
  }
  expect(current.pagination.previousPageToken).toBeNull();
}

beforeAll(async () => {
  admin = (await t.users.signUp({ email: adminEmail })).cookie;
  user = (await t.users.signUp()).cookie;
  const me = await get(admin, '/bff/me');
  expect(me.json().systemAdmin).toBe(true);
  expect((await get(user, '/bff/me')).statusCode).toBe(200);
  const [adminPerson] = (await t.testDb.db.select().from(persons)).filter((person) => person.email === adminEmail);
  adminPersonId = adminPerson!.id;

  // 23 older persons, two to a millisecond, in one organisation; 17 feedback entries likewise.
  const organizationId = randomUUID();
  await t.testDb.db.insert(organizations).values({ id: organizationId, name: 'Old timers' });
  const base = Date.parse('2025-06-01T08:00:00.000Z');
  const oldTimers = Array.from({ length: 23 }, (_, i) => ({
    id: randomUUID(),
    identityId: randomUUID(),
    email: `old-${i}@example.com`,
    organizationId,
    createdAt: new Date(base + Math.floor(i / 2)),
  }));
  await t.testDb.db.insert(persons).values(oldTimers);
  const roles = ['owner', 'admin', 'developer', 'billing'] as const;
  await t.testDb.db.insert(memberships).values(oldTimers.map((person, i) => ({ organizationId, personId: person.id, role: roles[i % 4]! })));
  await t.testDb.db.insert(feedback).values(
    Array.from({ length: 17 }, (_, i) => ({
      id: randomUUID(),
      personId: adminPersonId,
      fromEmail: adminEmail,
      type: i % 2 ? 'bug' : 'question',
      description: `Entry ${i}`,
      createdAt: new Date(base + Math.floor(i / 2)),
    })),
  );
}, 60_000);

describe('admin lists', () => {
  it('answers 403 problem+json to a signed-in person who is not a system admin', async () => {
    for (const url of ['/admin/persons', '/admin/feedback']) {
      const response = await get(user, url);
      expect(response.statusCode).toBe(403);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({ status: 403, code: 'Forbidden' });
    }
  });

  it('lists every person newest first, and pages forward and back in both orders', async () => {
    const everyone = (await t.testDb.db.select().from(persons)).sort(byKeyset);
    expect(everyone).toHaveLength(25);
    const organizationsOf = await organizationsByPerson();
    const items = everyone.map((person) => ({
      id: person.id,
      email: person.email,
      createdAt: person.createdAt.toISOString(),
      owedAmount: 0,
      organizations: organizationsOf(person.id),
    }));
    expect(items.find((item) => item.email === 'old-2@example.com')?.organizations).toEqual([
      { organizationId: expect.any(String), organizationName: 'Old timers', role: 'developer' },
    ]);
    // The two signed-up people come first: they were provisioned just now, the others in 2025.
    expect(items.slice(-2).map((item) => item.email)).toContain(adminEmail);
    expect((await page('/admin/persons', {})).items).toEqual([...items].reverse());
    await walk('/admin/persons', {}, [...items].reverse(), 4);
    await walk('/admin/persons', { asc: 'true' }, items, 10);
  });

  it('shows what an organisation owes after a refund or dispute beside each of its people', async () => {
    const [oldTimer] = (await t.testDb.db.select().from(persons)).filter((person) => person.email.startsWith('old-'));
    await t.testDb.db.transaction((tx) =>
      takeBack(tx, { organizationId: oldTimer!.organizationId, kind: 'refund', amountNanos: 8_250_000_000n, reference: 'evt_admin_list' }),
    );
    const items = (await page('/admin/persons', {})).items as unknown as { email: string; owedAmount: number }[];
    expect(items.filter((item) => item.email.startsWith('old-')).map((item) => item.owedAmount)).toEqual(Array(23).fill(8.25));
    expect(items.filter((item) => !item.email.startsWith('old-')).map((item) => item.owedAmount)).toEqual([0, 0]);
  });

  it("shows each person's organisations with their role in each, oldest membership first", async () => {
    const [oldTimer] = (await t.testDb.db.select().from(persons)).filter((person) => person.email === 'old-0@example.com');
    await t.testDb.db.insert(memberships).values({ organizationId: oldTimer!.organizationId, personId: adminPersonId, role: 'billing' });
    const items = (await page('/admin/persons', {})).items as unknown as { email: string; organizations: unknown[] }[];
    expect(items.find((item) => item.email === adminEmail)?.organizations).toEqual([
      { organizationId: expect.any(String), organizationName: expect.stringMatching(/organisation$/), role: 'owner' },
      { organizationId: oldTimer!.organizationId, organizationName: 'Old timers', role: 'billing' },
    ]);
  });

  it('lists all feedback newest first, and pages forward and back in both orders', async () => {
    const entries = (await t.testDb.db.select().from(feedback)).sort(byKeyset);
    const items = entries.map((entry) => ({ id: entry.id, fromEmail: entry.fromEmail, type: entry.type, description: entry.description }));
    expect(items).toHaveLength(17);
    expect(items.find((item) => item.description === 'Entry 3')).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      fromEmail: adminEmail,
      type: 'bug',
      description: 'Entry 3',
    });
    await walk('/admin/feedback', {}, [...items].reverse(), 5);
    await walk('/admin/feedback', { asc: 'true' }, items, 17);
  });

  it('validates the list query and refuses a token of the other list', async () => {
    const invalid = await get(admin, '/admin/persons', { limit: '101' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({ status: 400, errors: [{ field: 'limit', message: 'limit must be at most 100' }] });
    const token = (await page('/admin/persons', { limit: '2' })).pagination.nextPageToken!;
    const foreign = await get(admin, '/admin/feedback', { limit: '2', nextPageToken: token });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({ status: 400, detail: 'Invalid page token.' });
  });
});

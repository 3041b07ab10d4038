import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { chatCompletions, persons, publishableKeys } from '../../db/schema/index.js';
import { setupTestApp } from '../../testing/setup-test-app.js';

const t = setupTestApp({}, { identity: true });

type Org = { cookie: string; organizationId: string; keys: string[] };
type Row = typeof chatCompletions.$inferInsert & { createdAt: Date; id: string };

const base = Date.parse('2026-03-01T12:00:00.000Z');
let a: Org;
let b: Org;
let rowsOfA: Row[] = [];
let rowsOfB: Row[] = [];

/** A signed-up, provisioned person with `keyCount` publishable keys in their organisation. */
async function organisation(keyCount: number): Promise<Org> {
  const user = await t.users.signUp();
  expect((await t.app.inject({ method: 'GET', url: '/bff/me', headers: { cookie: user.cookie } })).statusCode).toBe(200);
  const [person] = await t.testDb.db.select().from(persons).where(eq(persons.identityId, user.identityId));
  if (!person) throw new Error('the person was not provisioned');
  const keys = Array.from({ length: keyCount }, () => randomUUID());
  await t.testDb.db.insert(publishableKeys).values(
    keys.map((id) => ({
      id,
      organizationId: person.organizationId,
      name: 'Test',
      value: `pk_live_${id.replaceAll('-', '')}`,
      spendLimitNanos: 10_000_000_000n,
      allowedOrigins: [],
    })),
  );
  return { cookie: user.cookie, organizationId: person.organizationId, keys };
}

/**
 * `count` rows, three to a timestamp so the id has to break ties (and page boundaries fall inside
 * a tie), with ids handed out of insertion order. Ids are same-length lower-case letters and
 * digits, which sort the same under every collation. Every fifth row is on the second key, if any.
 */
function rows(org: Org, prefix: string, count: number): Row[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${String((i * 97) % count).padStart(4, '0')}`,
    organizationId: org.organizationId,
    publishableKeyId: (i % 5 === 0 && org.keys[1]) || org.keys[0]!,
    createdAt: new Date(base + Math.floor(i / 3) * 1000),
    model: 'demo-small',
    estimatedInputTokens: 10 + i,
    inputTokens: 11 + i,
    estimatedInputCostNanos: 1_000n * BigInt(i),
    inputCostNanos: 1_100n * BigInt(i),
    outputTokens: 20 + i,
    outputCostNanos: 2_000n * BigInt(i),
    totalCostNanos: i % 10 === 9 ? null : 3_100n * BigInt(i),
    // Every other call from a key that requires end-user tokens; rows from before the network was kept have none.
    endUser: i % 2 === 0 ? `user-${i}` : null,
    clientNetwork: i % 3 === 0 ? null : '203.0.113.0/24',
  }));
}

const byKeyset = (x: Row, y: Row) => x.createdAt.getTime() - y.createdAt.getTime() || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
const ordered = (list: Row[], asc: boolean) => (asc ? [...list].sort(byKeyset) : [...list].sort(byKeyset).reverse()).map((row) => row.id);

const list = (org: Org, query: Record<string, string | number | boolean>) =>
  t.app.inject({
    method: 'GET',
    url: '/bff/chat-completions',
    query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
    headers: { cookie: org.cookie },
  });

async function page(org: Org, query: Record<string, string | number | boolean>) {
  const response = await list(org, query);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { items: { id: string }[]; pagination: { nextPageToken: string | null; previousPageToken: string | null } };
}

/** Pages forward to the end, then back to the start, checking every page against `expected`. */
async function walk(org: Org, query: Record<string, string | number | boolean>, expected: string[], limit: number) {
  const slices = Array.from({ length: Math.ceil(expected.length / limit) }, (_, i) => expected.slice(i * limit, (i + 1) * limit));
  let current = await page(org, query);
  expect(current.items.map((item) => item.id)).toEqual(slices[0]);
  expect(current.pagination.previousPageToken).toBeNull();
  for (let i = 1; i < slices.length; i++) {
    current = await page(org, { ...query, nextPageToken: current.pagination.nextPageToken! });
    expect(current.items.map((item) => item.id)).toEqual(slices[i]);
    expect(current.pagination.previousPageToken).not.toBeNull();
  }
  expect(current.pagination.nextPageToken).toBeNull();
  for (let i = slices.length - 2; i >= 0; i--) {
    current = await page(org, { ...query, previousPageToken: current.pagination.previousPageToken! });
    expect(current.items.map((item) => item.id)).toEqual(slices[i]);
    expect(current.pagination.nextPageToken).not.toBeNull();
  }
  expect(current.pagination.previousPageToken).toBeNull();
}

beforeAll(async () => {
  a = await organisation(2);
  b = await organisation(1);
  rowsOfA = rows(a, 'ca', 250);
  // B's calls happen in the very same milliseconds as A's.
  rowsOfB = rows(b, 'cb', 30);
  await t.testDb.db.insert(chatCompletions).values([...rowsOfA, ...rowsOfB]);
}, 60_000);

describe('GET /bff/chat-completions', () => {
  it('pages forward and back over 250 rows, newest first by default', async () => {
    await walk(a, {}, ordered(rowsOfA, false), 100);
  });

  it('pages forward and back over 250 rows oldest first', async () => {
    await walk(a, { asc: true }, ordered(rowsOfA, true), 100);
  });

  it('splits ties between pages without losing or repeating a row (limit 7, both orders)', async () => {
    await walk(a, { limit: 7 }, ordered(rowsOfA, false), 7);
    await walk(a, { limit: 7, asc: true }, ordered(rowsOfA, true), 7);
  });

  it('answers each call in dollars, with no totalCost while it is unsettled', async () => {
    const items = (await page(a, { asc: true })).items;
    // Row i = 4 has id (4 * 97) % 250 = 138; row i = 9 (id 123) is not settled yet.
    expect(items.find((item) => item.id === 'ca0138')).toEqual({
      id: 'ca0138',
      createdAt: '2026-03-01T12:00:01.000Z',
      model: 'demo-small',
      publishableKeyId: a.keys[0],
      secretKeyId: null,
      provider: null,
      estimatedInputTokens: 14,
      inputTokens: 15,
      estimatedInputCost: 0.000004,
      inputCost: 0.0000044,
      outputTokens: 24,
      outputCost: 0.000008,
      totalCost: 0.0000124,
      endUser: 'user-4',
      clientNetwork: '203.0.113.0/24',
      cacheHit: false,
    });
    const unsettled = items.find((item) => item.id === 'ca0123');
    expect(unsettled).toMatchObject({ id: 'ca0123', inputCost: 0.0000099, createdAt: '2026-03-01T12:00:03.000Z' });
    expect(unsettled).not.toHaveProperty('totalCost');
  });

  it('shows each organisation only its own calls, even in the same milliseconds', async () => {
    await walk(b, { limit: 10 }, ordered(rowsOfB, false), 10);
    const other = await organisation(1);
    expect(await page(other, {})).toEqual({ items: [], pagination: { nextPageToken: null, previousPageToken: null } });
    // Filtering by another organisation's key shows nothing of theirs either.
    expect((await page(b, { publishableKeyId: a.keys[0]! })).items).toEqual([]);
  });

  it('filters by publishable key, and pages within the filter', async () => {
    const ofKey = rowsOfA.filter((row) => row.publishableKeyId === a.keys[1]);
    expect(ofKey).toHaveLength(50);
    await walk(a, { publishableKeyId: a.keys[1]!, limit: 20 }, ordered(ofKey, false), 20);
    await walk(
      a,
      { publishableKeyId: a.keys[0]!, asc: true },
      ordered(
        rowsOfA.filter((row) => row.publishableKeyId === a.keys[0]),
        true,
      ),
      100,
    );
  });

  it('treats empty page tokens as the first page', async () => {
    expect((await page(a, { nextPageToken: '', previousPageToken: '' })).items.map((item) => item.id)).toEqual(ordered(rowsOfA, false).slice(0, 100));
  });

  it.each([
    ['limit', '0', 'limit must be at least 1'],
    ['limit', '101', 'limit must be at most 100'],
    ['limit', 'abc', 'limit must be a number'],
    ['limit', '2.5', 'limit must be a whole number'],
    ['asc', 'yes', 'asc must be true or false'],
    ['publishableKeyId', 'not-a-key', 'publishableKeyId must be a key id'],
  ])('rejects %s=%s with 400 naming the field', async (field, value, message) => {
    const response = await list(a, { [field]: value });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 400, code: 'BadRequest', errors: [{ field, message }] });
  });

  describe('page tokens', () => {
    const rejected = async (org: Org, query: Record<string, string | number | boolean>) => {
      const response = await list(org, query);
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      const field = query.nextPageToken ? 'nextPageToken' : 'previousPageToken';
      expect(response.json()).toMatchObject({
        status: 400,
        code: 'BadRequest',
        detail: 'Invalid page token.',
        errors: [{ field, message: 'Invalid page token.' }],
      });
    };
    const nextOf = async (org: Org, query: Record<string, string | number | boolean>) => (await page(org, { ...query, limit: 10 })).pagination.nextPageToken!;

    it('rejects a tampered token', async () => {
      const token = await nextOf(a, {});
      const [payload = '', signature = ''] = token.split('.');
      const cursor = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      const moved = Buffer.from(JSON.stringify({ ...cursor, createdAt: '2020-01-01T00:00:00.000Z' })).toString('base64url');
      await rejected(a, { nextPageToken: `${moved}.${signature}` });
      await rejected(a, { nextPageToken: `${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}` });
      await rejected(a, { nextPageToken: 'abc' });
    });

    it("rejects another organisation's token, even with the same ids and times", async () => {
      await rejected(a, { nextPageToken: await nextOf(b, {}) });
      await rejected(b, { nextPageToken: await nextOf(a, {}) });
    });

    it('rejects a token of the other sort order, of another filter or of the other direction', async () => {
      await rejected(a, { asc: true, limit: 10, nextPageToken: await nextOf(a, {}) });
      await rejected(a, { limit: 10, nextPageToken: await nextOf(a, { asc: true }) });
      await rejected(a, { limit: 10, nextPageToken: await nextOf(a, { publishableKeyId: a.keys[1]! }) });
      await rejected(a, { publishableKeyId: a.keys[0]!, nextPageToken: await nextOf(a, { publishableKeyId: a.keys[1]! }) });
      await rejected(a, { limit: 10, previousPageToken: await nextOf(a, {}) });
    });

    it('refuses both tokens at once', async () => {
      const second = await page(a, { limit: 10, nextPageToken: await nextOf(a, {}) });
      const response = await list(a, { limit: 10, nextPageToken: second.pagination.nextPageToken!, previousPageToken: second.pagination.previousPageToken! });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ status: 400, code: 'BadRequest' });
    });
  });
});

import { randomUUID } from 'node:crypto';
import { get, type IncomingMessage } from 'node:http';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { chatCompletions, persons, publishableKeys } from '../../db/schema/index.js';
import { exportBatchSize } from '../../domain/usage/export-chat-completions.js';
import { setupTestApp } from '../../testing/setup-test-app.js';

const t = setupTestApp({}, { identity: true });

type Org = { cookie: string; organizationId: string; keys: string[] };
type Row = typeof chatCompletions.$inferInsert;

const base = Date.parse('2026-03-01T12:00:00.000Z');
const header =
  'ID,Created at,Model,Publishable key ID,Publishable key name,Estimated input tokens,Actual input tokens,Estimated input cost (USD),Actual input cost (USD),Output tokens,Output cost (USD),Total cost (USD),Usage estimated,Cached input tokens,Price list version,End user,Client network,Secret key ID,Secret key name,Provider,Cache hit\r\n';
let a: Org;
let b: Org;
let many: Org;
let fat: Org;

/** A signed-up, provisioned person whose organisation has keys of these names. */
async function organisation(keyNames: string[]): Promise<Org> {
  const user = await t.users.signUp();
  expect((await t.app.inject({ method: 'GET', url: '/bff/me', headers: { cookie: user.cookie } })).statusCode).toBe(200);
  const [person] = await t.testDb.db.select().from(persons).where(eq(persons.identityId, user.identityId));
  if (!person) throw new Error('the person was not provisioned');
  const keys = keyNames.map(() => randomUUID());
  await t.testDb.db.insert(publishableKeys).values(
    keys.map((id, i) => ({
      id,
      organizationId: person.organizationId,
      name: keyNames[i]!,
      value: `pk_live_${id.replaceAll('-', '')}`,
      spendLimitNanos: 10_000_000_000n,
      allowedOrigins: [],
    })),
  );
  return { cookie: user.cookie, organizationId: person.organizationId, keys };
}

const call = (org: Org, overrides: Partial<Row> & { id: string; createdAt: Date }): Row => ({
  organizationId: org.organizationId,
  publishableKeyId: org.keys[0]!,
  model: 'demo-small',
  estimatedInputTokens: 1300,
  inputTokens: 1234,
  estimatedInputCostNanos: 650_000n,
  inputCostNanos: 617_000n,
  outputTokens: 82,
  outputCostNanos: 123_000n,
  totalCostNanos: 740_000n,
  ...overrides,
});

/** `count` calls, three to a second so the id breaks ties, ids out of insertion order. */
async function insertMany(org: Org, prefix: string, count: number, model = 'demo-small') {
  const rows = Array.from({ length: count }, (_, i) =>
    call(org, { id: `${prefix}${String((i * 7919) % count).padStart(6, '0')}`, createdAt: new Date(base + Math.floor(i / 3) * 1000), model }),
  );
  for (let at = 0; at < rows.length; at += 1000) await t.testDb.db.insert(chatCompletions).values(rows.slice(at, at + 1000));
  return rows;
}

const exportOf = (org: Org, query: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: '/bff/chat-completions/export', query, headers: { cookie: org.cookie } });

/** The ID column of a CSV whose fields hold no line breaks. */
const ids = (csv: string) =>
  csv
    .split('\r\n')
    .slice(1, -1)
    .map((line) => line.split(',')[0]);

const keysetOrder = (rows: Row[], asc: boolean) => {
  const sorted = [...rows].sort((x, y) => x.createdAt!.getTime() - y.createdAt!.getTime() || (x.id < y.id ? -1 : 1)).map((row) => row.id);
  return asc ? sorted : sorted.reverse();
};

beforeAll(async () => {
  a = await organisation(['Production', '=HYPERLINK("https://evil.example")']);
  b = await organisation(['Other']);
  many = await organisation(['Bulk']);
  fat = await organisation(['Fat']);
  await t.testDb.db.insert(chatCompletions).values([
    call(a, {
      id: 'ca-1',
      createdAt: new Date(base),
      cachedInputTokens: 1000,
      priceVersion: '2026-11-25',
      endUser: '=1+1',
      clientNetwork: '203.0.113.0/24',
      cacheHit: true,
    }),
    call(a, {
      id: 'ca-2',
      createdAt: new Date(base + 1000),
      model: 'say "hi", then\r\nleave',
      publishableKeyId: a.keys[1]!,
      estimatedInputTokens: 10,
      inputTokens: 0,
      estimatedInputCostNanos: 1_234_567_890_123n,
      inputCostNanos: 0n,
      outputTokens: 0,
      outputCostNanos: 5n,
      totalCostNanos: null,
      usageEstimated: true,
    }),
    call(a, {
      id: 'ca-3',
      createdAt: new Date(base + 2000),
      model: '-2+3',
      estimatedInputCostNanos: 1_000_000_000n,
      inputCostNanos: 2_500_000_000n,
      totalCostNanos: 3_500_000_000n,
    }),
    call(a, { id: 'ca-4', createdAt: new Date(base + 3000), model: '@SUM(A1)', publishableKeyId: a.keys[1]! }),
    // B's calls in the very same milliseconds as A's.
    call(b, { id: 'cb-1', createdAt: new Date(base) }),
    call(b, { id: 'cb-2', createdAt: new Date(base + 1000) }),
  ]);
}, 60_000);

describe('GET /bff/chat-completions/export', () => {
  it('sends every call as CSV, newest first: quoted fields, defused formulas, exact dollars', async () => {
    const response = await exportOf(a);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="chat-completions-${new Date().toISOString().slice(0, 10)}.csv"`);
    expect(response.headers['x-total-count']).toBe('4');
    const [production, evil] = a.keys;
    expect(response.body).toBe(
      header +
        `ca-4,2026-03-01T12:00:03.000Z,'@SUM(A1),${evil},"'=HYPERLINK(""https://evil.example"")",1300,1234,0.00065,0.000617,82,0.000123,0.00074,false,0,,,,,,,false\r\n` +
        `ca-3,2026-03-01T12:00:02.000Z,'-2+3,${production},Production,1300,1234,1,2.5,82,0.000123,3.5,false,0,,,,,,,false\r\n` +
        `ca-2,2026-03-01T12:00:01.000Z,"say ""hi"", then\r\nleave",${evil},"'=HYPERLINK(""https://evil.example"")",10,0,1234.567890123,0,0,0.000000005,,true,0,,,,,,,false\r\n` +
        `ca-1,2026-03-01T12:00:00.000Z,demo-small,${production},Production,1300,1234,0.00065,0.000617,82,0.000123,0.00074,false,1000,2026-11-25,'=1+1,203.0.113.0/24,,,,true\r\n`,
    );
  });

  it('honours the order and the key filter of the list', async () => {
    const oldestFirst = await exportOf(a, { asc: 'true' });
    expect(oldestFirst.body.startsWith(`${header}ca-1,`)).toBe(true);
    expect(oldestFirst.body.indexOf('ca-2,')).toBeLessThan(oldestFirst.body.indexOf('ca-3,'));
    expect(oldestFirst.body.indexOf('ca-3,')).toBeLessThan(oldestFirst.body.indexOf('ca-4,'));

    const ofProduction = await exportOf(a, { publishableKeyId: a.keys[0]!, asc: 'true' });
    expect(ofProduction.headers['x-total-count']).toBe('2');
    expect(ids(ofProduction.body)).toEqual(['ca-1', 'ca-3']);
  });

  it("shows each organisation only its own calls, and nothing through another organisation's key", async () => {
    const own = await exportOf(b);
    expect(own.headers['x-total-count']).toBe('2');
    expect(ids(own.body)).toEqual(['cb-2', 'cb-1']);

    const throughKeyOfA = await exportOf(b, { publishableKeyId: a.keys[0]! });
    expect(throughKeyOfA.statusCode).toBe(200);
    expect(throughKeyOfA.headers['x-total-count']).toBe('0');
    expect(throughKeyOfA.body).toBe(header);
  });

  it.each([
    ['asc', 'yes', 'asc must be true or false'],
    ['publishableKeyId', 'not-a-key', 'publishableKeyId must be a key id'],
  ])('rejects %s=%s with 400 naming the field', async (field, value, message) => {
    const response = await exportOf(a, { [field]: value });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 400, code: 'BadRequest', errors: [{ field, message }] });
  });

  it('reads past one batch without losing or repeating a call, in both orders', async () => {
    const rows = await insertMany(many, 'cm', exportBatchSize * 2 + 1);
    for (const asc of [false, true]) {
      const response = await exportOf(many, { asc: String(asc) });
      expect(response.headers['x-total-count']).toBe(String(rows.length));
      expect(ids(response.body)).toEqual(keysetOrder(rows, asc));
    }
  }, 60_000);

  it('reads no further than the client takes, and stops when the client goes away', async () => {
    // ≈ 1 kB a row: ten batches (≈ 20 MB) are far more than the socket buffers of both ends hold.
    const rows = await insertMany(fat, 'cf', exportBatchSize * 10, `demo-${'x'.repeat(1000)}`);
    // Every query the request makes (the viewer, the count, the key names, each batch) is one select.
    const queries = vi.spyOn(t.testDb.handle.db, 'select');
    const whole = await exportOf(fat);
    expect(whole.headers['x-total-count']).toBe(String(rows.length));
    const queriesOfWholeExport = queries.mock.calls.length;

    queries.mockClear();
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const request = get(`${address}/bff/chat-completions/export`, { headers: { cookie: fat.cookie } });
    try {
      const response = await new Promise<IncomingMessage>((resolve) => request.once('response', resolve));
      expect(response.statusCode).toBe(200);
      await new Promise((resolve) => response.once('data', resolve));
      response.pause();
      const whilePaused = await settled(() => queries.mock.calls.length);
      expect(whilePaused).toBeLessThan(queriesOfWholeExport);

      request.destroy();
      const connections = () => new Promise<number>((resolve) => t.app.server.getConnections((_, count) => resolve(count)));
      while ((await connections()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      // Once the server has seen the client go, reading stops: at most the batch the stream had
      // already asked for as the socket closed (on a loaded machine the close reaches the stream a
      // moment after the connection count), then nothing more, and far short of the whole export.
      const atDisconnect = queries.mock.calls.length;
      const stopped = await settled(() => queries.mock.calls.length);
      expect(stopped).toBeLessThanOrEqual(atDisconnect + 1);
      expect(stopped).toBeLessThan(queriesOfWholeExport);
    } finally {
      request.destroy();
      queries.mockRestore();
    }
  }, 60_000);
});

/** The value `read` gives once it stops changing (the same for half a second). */
async function settled<T>(read: () => T | Promise<T>): Promise<T> {
  let last = await read();
  for (let same = 0; same < 5;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await read();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

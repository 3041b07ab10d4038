import { randomUUID } from 'node:crypto';
import type { UsageDaily } from '@meterway/contracts';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { chatCompletions, memberships, persons, publishableKeys } from '../../db/schema/index.js';
import { getUsageDaily } from '../../domain/usage/usage-daily.js';
import type { Viewer } from '../../domain/people/ensure-person.js';
import { setupTestApp } from '../../testing/setup-test-app.js';

const t = setupTestApp({}, { identity: true });

type Org = { cookie: string; organizationId: string; keys: string[] };
type Call = { at: Date; key: string; model: string; input: number; output: number; costNanos: bigint | null };

const dayMs = 86_400_000;
// Today's UTC midnight when the file starts; the window is the 30 UTC days ending today.
const today = Math.floor(Date.now() / dayMs) * dayMs;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const windowDays = (count: number) => Array.from({ length: count }, (_, i) => isoDay(today - (count - 1 - i) * dayMs));

/** A signed-up, provisioned person with `keyCount` keys named "Key 1"… with budgets $10, $20…. */
async function organisation(keyCount: number): Promise<Org> {
  const user = await t.users.signUp();
  expect((await t.app.inject({ method: 'GET', url: '/bff/me', headers: { cookie: user.cookie } })).statusCode).toBe(200);
  const [person] = await t.testDb.db.select().from(persons).where(eq(persons.identityId, user.identityId));
  if (!person) throw new Error('the person was not provisioned');
  const keys = Array.from({ length: keyCount }, () => randomUUID());
  for (const [i, id] of keys.entries()) {
    await t.testDb.db.insert(publishableKeys).values({
      id,
      organizationId: person.organizationId,
      name: `Key ${i + 1}`,
      value: `pk_live_${id.replaceAll('-', '')}`,
      spendLimitNanos: BigInt(i + 1) * 10_000_000_000n,
      allowedOrigins: [],
    });
  }
  return { cookie: user.cookie, organizationId: person.organizationId, keys };
}

/** Inserted the way the gateway records calls: through chat_completions, whose trigger keeps usage_daily. */
async function record(org: Org, calls: Call[]) {
  await t.testDb.db.insert(chatCompletions).values(
    calls.map((call) => ({
      id: `chatcmpl-${randomUUID()}`,
      organizationId: org.organizationId,
      publishableKeyId: call.key,
      createdAt: call.at,
      model: call.model,
      estimatedInputTokens: call.input,
      inputTokens: call.input,
      estimatedInputCostNanos: 0n,
      inputCostNanos: 0n,
      outputTokens: call.output,
      outputCostNanos: 0n,
      totalCostNanos: call.costNanos,
    })),
  );
}

const usage = (org: Org, query: Record<string, string | number> = {}) =>
  t.app.inject({
    method: 'GET',
    url: '/bff/usage/daily',
    query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
    headers: { cookie: org.cookie },
  });

async function ok(org: Org, query: Record<string, string | number> = {}): Promise<UsageDaily> {
  const response = await usage(org, query);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

const nanos = (dollars: number) => BigInt(Math.round(dollars * 1e9));
const splitNanos = (split: Record<string, number>) => Object.values(split).reduce((sum, dollars) => sum + nanos(dollars), 0n);
const sumNanos = (calls: Call[]) => calls.reduce((sum, call) => sum + (call.costNanos ?? 0n), 0n);

let a: Org;
let b: Org;
let callsOfA: Call[] = [];

beforeAll(async () => {
  a = await organisation(2);
  b = await organisation(1);
  const [k1, k2] = a.keys as [string, string];
  callsOfA = [
    // Today's first millisecond and yesterday's last one fall on different UTC days.
    { at: new Date(today), key: k1, model: 'gpt-4o-mini', input: 10, output: 5, costNanos: 1n },
    { at: new Date(today - 1), key: k1, model: 'gpt-4o-mini', input: 20, output: 6, costNanos: 999_999_999n },
    { at: new Date(today + 60_000), key: k2, model: 'meterway-demo', input: 30, output: 7, costNanos: 123_456_789_012n },
    { at: new Date(today + 120_000), key: k1, model: 'meterway-demo', input: 40, output: 8, costNanos: 7n },
    // Still being settled: a call, tokens, no cost yet.
    { at: new Date(today + 180_000), key: k2, model: 'gpt-4o-mini', input: 50, output: 9, costNanos: null },
    // The window's first day, and the day before it (outside).
    { at: new Date(today - 29 * dayMs), key: k2, model: 'gpt-4o-mini', input: 60, output: 10, costNanos: 3_000_000_000n },
    { at: new Date(today - 29 * dayMs - 1), key: k1, model: 'gpt-4o-mini', input: 70, output: 11, costNanos: 5_000_000_000n },
  ];
  // Two statements, so the trigger both inserts and adds to existing days.
  await record(a, callsOfA.slice(0, 3));
  await record(a, callsOfA.slice(3));
  // B's calls on the same days never show in A's chart.
  await record(b, [{ at: new Date(today), key: b.keys[0]!, model: 'gpt-4o-mini', input: 1, output: 1, costNanos: 1_000_000_000n }]);
}, 60_000);

describe('GET /bff/usage/daily', () => {
  it('answers every day of the last 30 UTC days, cost per model exact to the nano-dollar, zeros between', async () => {
    const body = await ok(a);
    expect(body.days.map((day) => day.day)).toEqual(windowDays(30));
    expect(body.models).toEqual(['gpt-4o-mini', 'meterway-demo']);
    expect(body).not.toHaveProperty('publishableKey');

    const [first, ...rest] = body.days;
    const todayRow = rest.at(-1)!;
    const yesterday = rest.at(-2)!;
    expect(first).toMatchObject({ costByModel: { 'gpt-4o-mini': 3, 'meterway-demo': 0 }, cost: 3, calls: 1, inputTokens: 60, outputTokens: 10 });
    expect(yesterday).toMatchObject({ costByModel: { 'gpt-4o-mini': 0.999999999, 'meterway-demo': 0 }, calls: 1, inputTokens: 20, outputTokens: 6 });
    expect(todayRow).toMatchObject({ calls: 4, inputTokens: 130, outputTokens: 29 });
    expect(nanos(todayRow.costByModel['gpt-4o-mini']!)).toBe(1n);
    expect(nanos(todayRow.costByModel['meterway-demo']!)).toBe(123_456_789_019n);
    expect(nanos(todayRow.cost)).toBe(123_456_789_020n);
    for (const day of rest.slice(0, -2)) {
      expect(day).toMatchObject({ costByModel: { 'gpt-4o-mini': 0, 'meterway-demo': 0 }, cost: 0, calls: 0, inputTokens: 0, outputTokens: 0 });
    }

    const inWindow = callsOfA.slice(0, -1);
    expect(body.totals).toMatchObject({ calls: 6, inputTokens: 210, outputTokens: 45 });
    expect(nanos(body.totals.cost)).toBe(sumNanos(inWindow));
  });

  it("splits each day by key as well: every key of the window on every day, summing to the day's cost", async () => {
    const body = await ok(a);
    const [k1, k2] = a.keys as [string, string];
    expect(body.keys).toEqual([
      { id: k1, name: 'Key 1', deleted: false },
      { id: k2, name: 'Key 2', deleted: false },
    ]);
    const [first, ...rest] = body.days;
    // Key 1's call the day before the window stays out of the window's first day.
    expect(first!.costByKey).toEqual({ [k1]: 0, [k2]: 3 });
    expect(rest.at(-2)!.costByKey).toEqual({ [k1]: 0.999999999, [k2]: 0 });
    expect(nanos(rest.at(-1)!.costByKey[k1]!)).toBe(8n);
    expect(nanos(rest.at(-1)!.costByKey[k2]!)).toBe(123_456_789_012n);
    for (const day of body.days) {
      expect(Object.keys(day.costByKey).sort(), day.day).toEqual([k1, k2].sort());
      expect(splitNanos(day.costByKey), day.day).toBe(nanos(day.cost));
      expect(splitNanos(day.costByKey), day.day).toBe(splitNanos(day.costByModel));
    }
    // Each call counted once: the split by key leaves the calls and tokens as they were.
    expect(body.totals).toMatchObject({ calls: 6, inputTokens: 210, outputTokens: 45 });
  });

  it('lists only the keys with usage in the window, deleted ones by name and marked deleted', async () => {
    const org = await organisation(3);
    const [live, gone, idle] = org.keys as [string, string, string];
    await record(org, [
      { at: new Date(today), key: live, model: 'm', input: 1, output: 1, costNanos: 1_000_000_000n },
      { at: new Date(today - dayMs), key: gone, model: 'm', input: 1, output: 1, costNanos: 2_000_000_000n },
      // Key 3's only call is older than the window.
      { at: new Date(today - 40 * dayMs), key: idle, model: 'm', input: 1, output: 1, costNanos: 4_000_000_000n },
    ]);
    await t.testDb.db.update(publishableKeys).set({ deletedAt: new Date() }).where(eq(publishableKeys.id, gone));

    const body = await ok(org);
    expect(body.keys).toEqual([
      { id: live, name: 'Key 1', deleted: false },
      { id: gone, name: 'Key 2', deleted: true },
    ]);
    expect(body.days.at(-1)!.costByKey).toEqual({ [live]: 1, [gone]: 0 });
    expect(body.days.at(-2)!.costByKey).toEqual({ [live]: 0, [gone]: 2 });
    expect((await ok(org, { days: 90 })).keys.map((key) => key.name)).toEqual(['Key 1', 'Key 2', 'Key 3']);

    // The deleted key's history still narrows to it.
    const one = await ok(org, { publishableKeyId: gone });
    expect(one.keys).toEqual([{ id: gone, name: 'Key 2', deleted: true }]);
    expect(one.days.at(-2)!.costByKey).toEqual({ [gone]: 2 });
  });

  it('answers the split by key to the billing role, who may not list the keys', async () => {
    const org = await organisation(1);
    await record(org, [{ at: new Date(today), key: org.keys[0]!, model: 'm', input: 1, output: 1, costNanos: 1_000_000_000n }]);
    // Its only member becomes billing.
    await t.testDb.db.update(memberships).set({ role: 'billing' }).where(eq(memberships.organizationId, org.organizationId));
    t.expireSessionCache();
    expect((await t.app.inject({ method: 'GET', url: '/bff/publishable-keys', headers: { cookie: org.cookie } })).statusCode).toBe(403);
    const body = await ok(org);
    expect(body.keys).toEqual([{ id: org.keys[0], name: 'Key 1', deleted: false }]);
    expect(body.days.at(-1)!.costByKey).toEqual({ [org.keys[0]!]: 1 });
  });

  it('adds up the month to date per UTC month, including the month before the window starts', async () => {
    const body = await ok(a);
    for (const day of body.days) {
      const monthStart = Date.parse(`${day.day.slice(0, 8)}01T00:00:00Z`);
      const dayEnd = Date.parse(`${day.day}T00:00:00Z`) + dayMs;
      const spent = sumNanos(callsOfA.filter((call) => call.at.getTime() >= monthStart && call.at.getTime() < dayEnd));
      expect(nanos(day.monthToDateCost), day.day).toBe(spent);
    }
  });

  it('narrows to one key, with its name and monthly budget; the table of days stays whole', async () => {
    const body = await ok(a, { publishableKeyId: a.keys[1]! });
    expect(body.publishableKey).toEqual({ id: a.keys[1], name: 'Key 2', monthlyBudget: 20 });
    expect(body.days).toHaveLength(30);
    expect(body.models).toEqual(['gpt-4o-mini', 'meterway-demo']);
    expect(body.days[0]).toMatchObject({ cost: 3, calls: 1 });
    expect(body.days.at(-1)).toMatchObject({ costByModel: { 'gpt-4o-mini': 0, 'meterway-demo': 123.456789012 }, calls: 2, inputTokens: 80 });
    expect(body.days.at(-2)).toMatchObject({ cost: 0, calls: 0 });
    expect(body.totals).toEqual({ cost: 126.456789012, calls: 3, inputTokens: 140, outputTokens: 26 });
    expect(body.keys).toEqual([{ id: a.keys[1], name: 'Key 2', deleted: false }]);
    expect(body.days.at(-1)!.costByKey).toEqual({ [a.keys[1]!]: 123.456789012 });
  });

  it('narrows to one secret key as secretKeyId, and names each key only as its own kind', async () => {
    const org = await organisation(1);
    const secretKeyId = randomUUID();
    await t.testDb.db.insert(publishableKeys).values({
      id: secretKeyId,
      organizationId: org.organizationId,
      kind: 'secret',
      scope: 'gateway',
      prefix: 'sk_live_Test',
      name: 'Backend',
      value: `hmac-sha256:${'A'.repeat(43)}`,
      spendLimitNanos: 50_000_000_000n,
      allowedOrigins: [],
    });
    await record(org, [
      { at: new Date(today), key: secretKeyId, model: 'gpt-4o-mini', input: 10, output: 5, costNanos: 2_000_000_000n },
      { at: new Date(today), key: org.keys[0]!, model: 'gpt-4o-mini', input: 10, output: 5, costNanos: 1_000_000_000n },
    ]);
    const body = await ok(org, { secretKeyId });
    expect(body.secretKey).toEqual({ id: secretKeyId, name: 'Backend', monthlyBudget: 50 });
    expect(body.publishableKey).toBeUndefined();
    expect(body.totals).toMatchObject({ cost: 2, calls: 1 });
    expect(body.keys).toEqual([{ id: secretKeyId, name: 'Backend', deleted: false }]);

    expect((await usage(org, { publishableKeyId: secretKeyId })).json()).toMatchObject({ status: 404, detail: 'Unknown publishable key.' });
    expect((await usage(org, { secretKeyId: org.keys[0]! })).json()).toMatchObject({ status: 404, detail: 'Unknown secret key.' });
    const both = await usage(org, { secretKeyId, publishableKeyId: org.keys[0]! });
    expect(both.statusCode).toBe(400);
    expect(both.json().errors).toEqual([{ field: 'secretKeyId', message: 'Ask for publishableKeyId or for secretKeyId, not both' }]);
  });

  it('takes a shorter or longer window with days (1–90)', async () => {
    const one = await ok(a, { days: 1 });
    expect(one.days.map((day) => day.day)).toEqual([isoDay(today)]);
    expect(one.totals.calls).toBe(4);
    const ninety = await ok(a, { days: 90 });
    expect(ninety.days.map((day) => day.day)).toEqual(windowDays(90));
    expect(ninety.totals.calls).toBe(7);
  });

  it("keeps organisations apart: another organisation's key id answers 404, and its usage never shows", async () => {
    const response = await usage(b, { publishableKeyId: a.keys[0]! });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 404, detail: 'Unknown publishable key.' });
    expect((await usage(a, { publishableKeyId: randomUUID() })).statusCode).toBe(404);

    const ofB = await ok(b);
    expect(ofB.models).toEqual(['gpt-4o-mini']);
    expect(ofB.keys.map((key) => key.id)).toEqual(b.keys);
    expect(ofB.totals).toEqual({ cost: 1, calls: 1, inputTokens: 1, outputTokens: 1 });
    const fresh = await ok(await organisation(0));
    expect(fresh.models).toEqual([]);
    expect(fresh.totals).toEqual({ cost: 0, calls: 0, inputTokens: 0, outputTokens: 0 });
    expect(fresh.keys).toEqual([]);
    expect(fresh.days.every((day) => day.cost === 0 && Object.keys(day.costByModel).length === 0 && Object.keys(day.costByKey).length === 0)).toBe(true);
  });

  it.each([
    ['days', '0', 'days must be at least 1'],
    ['days', '91', 'days must be at most 90'],
    ['days', 'abc', 'days must be a number'],
    ['days', '2.5', 'days must be a whole number'],
    ['publishableKeyId', 'not-a-key', 'publishableKeyId must be a key id'],
  ])('rejects %s=%s with 400 naming the field', async (field, value, message) => {
    const response = await usage(a, { [field]: value });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 400, code: 'BadRequest', errors: [{ field, message }] });
  });

  it('asks for a session', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/bff/usage/daily' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe('getUsageDaily', () => {
  it('starts the month-to-date over at each UTC month start', async () => {
    const org = await organisation(1);
    const key = org.keys[0]!;
    const at = (iso: string) => new Date(iso);
    await record(org, [
      { at: at('2026-01-20T10:00:00.000Z'), key, model: 'm', input: 1, output: 1, costNanos: 1_000_000_000n },
      { at: at('2026-01-30T23:59:59.999Z'), key, model: 'm', input: 1, output: 1, costNanos: 2_000_000_000n },
      { at: at('2026-02-01T00:00:00.000Z'), key, model: 'm', input: 1, output: 1, costNanos: 4_000_000_000n },
      { at: at('2026-02-02T12:00:00.000Z'), key, model: 'm', input: 1, output: 1, costNanos: 8_000_000_000n },
    ]);
    const viewer: Viewer = {
      personId: '',
      identityId: '',
      email: '',
      organizationId: org.organizationId,
      organizationName: '',
      role: 'owner',
      systemAdmin: false,
    };
    const body = await getUsageDaily(t.testDb.db, viewer, { days: 5, publishableKeyId: key }, at('2026-02-02T23:00:00.000Z'));
    expect(body.days.map((day) => [day.day, day.cost, day.monthToDateCost])).toEqual([
      ['2026-01-29', 0, 1],
      ['2026-01-30', 2, 3],
      ['2026-01-31', 0, 3],
      ['2026-02-01', 4, 4],
      ['2026-02-02', 8, 12],
    ]);
    expect(body.totals.cost).toBe(14);
  });
});

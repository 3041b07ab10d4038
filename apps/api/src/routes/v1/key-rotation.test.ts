import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { chatCompletions, keySpend } from '../../db/schema/index.js';
import { deleteKey, rollKey, updateKey } from '../../domain/keys/publishable-keys.js';
import { systemActor } from '../../domain/audit/record-audit.js';
import { openAiCompatible } from '../../gateway/providers/openai-compatible.js';
import { startFakeUpstream } from '../../testing/fake-upstream.js';
import { stockTrustMs } from '../../domain/metering/hold-stock.js';
import { setupGateway } from '../../testing/gateway-fixture.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';

let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(async () => upstream?.close());

const t = setupGateway(() => openAiCompatible({ baseUrl: upstream.baseUrl, timeoutMs: 1500, idleTimeoutMs: 1000 }));

// The injected clock: only Date is faked, so the gateway's `new Date()` reads it while sockets and
// timers run for real. Mid-month, so every call of a test falls in one budget period.
const rolledAt = new Date('2031-03-10T09:15:00.000Z');
const hour = 3_600_000;
const at = (offsetMs: number) => vi.setSystemTime(rolledAt.getTime() + offsetMs);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: rolledAt });
});
afterEach(async () => {
  vi.useRealTimers();
  await t.settled();
  await expectLedgerConsistent(t.testDb.db);
});

async function account() {
  const created = await t.account({ creditDollars: 1, budgetDollars: 1 });
  const viewer = { organizationId: created.organizationId, ...systemActor };
  const roll = async (overlapHours: number) => (await rollKey(t.testDb.db, viewer, created.keyId, overlapHours, new Date())).value;
  return { ...created, viewer, roll };
}

/** The status the gateway answers a small chat completion with this key value. */
async function statusWith(value: string, origin = 'https://app.example.com') {
  const response = await fetch(`${t.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${value}`, origin, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2 }),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('a rolled key on /v1/chat/completions', () => {
  it('takes the old value until roll + overlap, exclusive, to the second; the new value at once', async () => {
    const key = await account();
    const newValue = await key.roll(1);

    expect(await statusWith(newValue)).toBe(200);
    at(hour - 1000);
    expect(await statusWith(key.value)).toBe(200);
    at(hour);
    expect(await statusWith(key.value)).toBe(401);
    expect(await statusWith(newValue)).toBe(200);
  });

  it('holds a 24-hour overlap to the second as well', async () => {
    const key = await account();
    await key.roll(24);

    at(24 * hour - 1000);
    expect(await statusWith(key.value)).toBe(200);
    at(24 * hour);
    expect(await statusWith(key.value)).toBe(401);
  });

  it('with overlap 0 refuses the old value at once', async () => {
    const key = await account();
    const newValue = await key.roll(0);

    expect(await statusWith(key.value)).toBe(401);
    expect(await statusWith(newValue)).toBe(200);
  });

  it('rolled twice: the older previous value stops at once, the one just replaced gets the new overlap', async () => {
    const key = await account();
    const second = await key.roll(24);
    at(60_000);
    const third = await key.roll(1);

    expect(await statusWith(key.value)).toBe(401);
    at(60_000 + hour - 1000);
    expect(await statusWith(second)).toBe(200);
    expect(await statusWith(third)).toBe(200);
    at(60_000 + hour);
    expect(await statusWith(second)).toBe(401);
  });

  it('keeps the spend history: calls before the roll, with the old value and with the new one share one monthly budget', async () => {
    const key = await account();
    expect(await statusWith(key.value)).toBe(200);
    const newValue = await key.roll(1);
    expect(await statusWith(key.value)).toBe(200);
    expect(await statusWith(newValue)).toBe(200);

    await t.settled();
    const rows = await t.testDb.db.select().from(chatCompletions).where(eq(chatCompletions.organizationId, key.organizationId));
    expect(rows.map((row) => row.publishableKeyId)).toEqual([key.keyId, key.keyId, key.keyId]);
    const [spend, ...others] = await t.testDb.db.select().from(keySpend).where(eq(keySpend.publishableKeyId, key.keyId));
    expect(others).toEqual([]);
    expect(spend?.spentNanos).toBe(rows.reduce((sum, row) => sum + row.totalCostNanos!, 0n));
    expect(spend?.spentNanos).toBeGreaterThan(0n);
  });

  it('refuses both the old and the new value of a deleted key', async () => {
    const key = await account();
    const newValue = await key.roll(24);
    await deleteKey(t.testDb.db, key.viewer, key.keyId, new Date());

    expect(await statusWith(key.value)).toBe(401);
    expect(await statusWith(newValue)).toBe(401);
  });
});

// The gateway keeps the keys it has served; admission checks each against the database, and a
// stock of holds reserved ahead serves calls only while such a check is under stockTrustMs old.
// These edits go straight to the database, as another instance's console requests would.
describe('a key the gateway has already served', () => {
  it('follows every change made elsewhere within stockTrustMs: origins, budget, roll and delete', async () => {
    // The stock's trust is counted on performance.now(): faked too, the test moves it past stockTrustMs instead of waiting.
    vi.useFakeTimers({ toFake: ['Date', 'performance'], now: rolledAt });
    const key = await account();
    const elsewhere = async (change: () => Promise<unknown>) => {
      await change();
      vi.advanceTimersByTime(stockTrustMs + 20);
    };
    const edit = (input: { allowedOrigins: string[]; budget: number }) =>
      elsewhere(() => updateKey(t.testDb.db, key.viewer, key.keyId, { name: 'Edited', budgetType: 'monthly', ...input }, new Date()));
    expect(await statusWith(key.value)).toBe(200);
    expect(await statusWith(key.value)).toBe(200);

    await edit({ allowedOrigins: ['https://other.example.com'], budget: 1 });
    expect(await statusWith(key.value)).toBe(403);
    expect(await statusWith(key.value, 'https://other.example.com')).toBe(200);
    await edit({ allowedOrigins: ['https://app.example.com', 'https://other.example.com'], budget: 1 });
    expect(await statusWith(key.value)).toBe(200);
    expect(await statusWith(key.value)).toBe(200);

    await edit({ allowedOrigins: ['https://app.example.com'], budget: 0 });
    expect(await statusWith(key.value)).toBe(429);
    await edit({ allowedOrigins: ['https://app.example.com'], budget: 1 });
    expect(await statusWith(key.value)).toBe(200);
    expect(await statusWith(key.value)).toBe(200);

    let newValue = '';
    await elsewhere(async () => (newValue = await key.roll(0)));
    expect(await statusWith(key.value)).toBe(401);
    expect(await statusWith(newValue)).toBe(200);
    expect(await statusWith(newValue)).toBe(200);
    await elsewhere(() => deleteKey(t.testDb.db, key.viewer, key.keyId, new Date()));
    expect(await statusWith(newValue)).toBe(401);
  });

  it('answers a key deleted since it served it with 401 before any complaint about the request', async () => {
    const key = await account();
    expect(await statusWith(key.value)).toBe(200);
    await deleteKey(t.testDb.db, key.viewer, key.keyId, new Date());
    const response = await fetch(`${t.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.value}`, origin: 'https://app.example.com', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-unknown', messages: [] }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });
});

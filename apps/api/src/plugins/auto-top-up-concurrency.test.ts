import { randomUUID } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { autoTopUpCharges, autoTopUps, creditBalances } from '../db/schema/index.js';
import { openAiCompatible } from '../gateway/providers/openai-compatible.js';
import { startFakeUpstream } from '../testing/fake-upstream.js';
import { type SecondInstance, startSecondInstance } from '../testing/second-instance.js';
import { atRest, setupGateway } from '../testing/gateway-fixture.js';
import { expectLedgerConsistent } from '../testing/ledger-invariant.js';
import { postEntry } from '../domain/credit/ledger.js';
import { dollarsToNanos } from '../domain/money.js';
import { sandboxPaymentMethodId, sandboxProvider } from '../domain/payments/sandbox-provider.js';
import { getAutoTopUp, saveAutoTopUp } from '../domain/auto-top-up/auto-top-up-settings.js';
import { processCharges } from '../domain/auto-top-up/process-charges.js';

let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
// The apps' own workers stay idle: the test runs the rounds itself, on both instances at once.
const env: NodeJS.ProcessEnv = { AUTO_TOP_UP_INTERVAL_MS: '3600000', ALERT_CHECK_INTERVAL_MS: '3600000' };
const provider = () => openAiCompatible({ baseUrl: upstream.baseUrl, timeoutMs: 10_000, idleTimeoutMs: 5_000 });
const t = setupGateway(provider, env);

let second: SecondInstance;
beforeAll(async () => {
  second = await startSecondInstance(t.testDb.handle, env, provider());
});
afterAll(async () => {
  await second?.close();
  await upstream?.close();
});
afterEach(async () => expectLedgerConsistent(t.testDb.db));

const call = (url: string, key: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, origin: 'https://app.example.com', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Count to eight.' }], max_tokens: 8 }),
  }).then(async (response) => (await response.arrayBuffer(), response.status));

/** Calls spread over both instances, all at once; then both have settled what they answered. */
async function spend(key: string, calls: number) {
  const statuses = await Promise.all(Array.from({ length: calls }, (_, i) => call(i % 2 === 0 ? t.url : second.url, key)));
  expect(statuses.every((status) => status === 200)).toBe(true);
  await Promise.all([atRest(t.app), atRest(second.app)]);
}

const sandbox = sandboxProvider({ apiUrl: 'http://127.0.0.1', secret: 'x'.repeat(32), taxRate: 0, checkoutTtlMinutes: 30 });
const mailer = { send: async () => {} };
/** A round of the worker on each instance at the same moment. */
const rounds = (now = new Date()) =>
  Promise.all([t.testDb.db, second.db].map((db) => processCharges({ db, payments: sandbox, mailer, consoleUrl: 'https://console.example.com' }, now)));

const chargesOf = (organizationId: string) =>
  t.testDb.db.select().from(autoTopUpCharges).where(eq(autoTopUpCharges.organizationId, organizationId)).orderBy(asc(autoTopUpCharges.createdAt));
const balanceOf = async (organizationId: string) => {
  const [row] = await t.testDb.db.select().from(creditBalances).where(eq(creditBalances.organizationId, organizationId));
  return { balance: row!.balanceNanos, threshold: row!.autoTopUpBelowNanos };
};
/** Takes credit out as an operator's adjustment would, to bring the balance just above the threshold again. */
const adjustTo = async (organizationId: string, nanos: bigint) => {
  const { balance } = await balanceOf(organizationId);
  await t.testDb.db.transaction((tx) => postEntry(tx, { organizationId, kind: 'adjustment', amountNanos: nanos - balance, reference: randomUUID() }));
};

/** An account with a saved sandbox card that charges, and auto top-up on. */
async function accountWithAutoTopUp(creditDollars: number, settings: { thresholdAmount: number; topUpAmount: number; monthlyCapAmount: number }) {
  const account = await t.account({ creditDollars, budgetDollars: 100 });
  await t.testDb.db.insert(autoTopUps).values({
    organizationId: account.organizationId,
    thresholdNanos: dollarsToNanos(settings.thresholdAmount),
    topUpNanos: dollarsToNanos(settings.topUpAmount),
    monthlyCapNanos: dollarsToNanos(settings.monthlyCapAmount),
    provider: 'sandbox',
    paymentMethodId: sandboxPaymentMethodId('succeed'),
    cardBrand: 'visa',
    cardLast4: '4242',
  });
  await saveAutoTopUp(t.testDb.db, { organizationId: account.organizationId, personId: null, email: 'system' }, { enabled: true, ...settings }, new Date());
  return account;
}

// Each call costs about $0.000006: 40 calls take a balance $0.00003 above the threshold below it.
const justAbove = (thresholdDollars: number) => dollarsToNanos(thresholdDollars) + 30_000n;

describe(`auto top-up under concurrent gateway calls on two api instances${process.env.DATABASE_URL ? ' sharing one Postgres' : ''}`, () => {
  it('charges whenever the balance is below the threshold and none is open, one at a time across instances, never past the monthly cap', async () => {
    const account = await accountWithAutoTopUp(1.00003, { thresholdAmount: 1, topUpAmount: 1, monthlyCapAmount: 2 });
    expect((await balanceOf(account.organizationId)).threshold).toBe(1_000_000_000n);

    // Many settlements below the threshold on both instances: one charge.
    await spend(account.value, 40);
    expect((await chargesOf(account.organizationId)).map((charge) => charge.status)).toEqual(['pending']);
    // Still below, with the charge not yet made: no second one.
    await spend(account.value, 10);
    expect(await chargesOf(account.organizationId)).toHaveLength(1);

    // Both workers at once make the charge once.
    await rounds();
    expect((await chargesOf(account.organizationId)).map((charge) => charge.status)).toEqual(['succeeded']);
    expect((await balanceOf(account.organizationId)).balance).toBeGreaterThan(1_900_000_000n);

    // Below again: charged again (the cap, $2, allows it).
    await adjustTo(account.organizationId, justAbove(1));
    await spend(account.value, 40);
    await rounds();
    expect((await chargesOf(account.organizationId)).map((charge) => charge.status)).toEqual(['succeeded', 'succeeded']);

    // A third would take the month's charges to $3: none is claimed, the balance stays below, and the console is told why.
    await adjustTo(account.organizationId, justAbove(1));
    await spend(account.value, 40);
    await rounds();
    expect(await chargesOf(account.organizationId)).toHaveLength(2);
    expect((await balanceOf(account.organizationId)).balance).toBeLessThan(1_000_000_000n);
    expect((await getAutoTopUp(t.testDb.db, account, new Date())).heldBackReason).toBe(
      "The balance is below $1.00, but another $1.00 would take this month's charges ($2.00) past the monthly cap of $2.00. Raise the cap or add credit.",
    );

    // A new month starts a new cap: the next round charges, though no call was made.
    const nextMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1, 0, 0, 5));
    await rounds(nextMonth);
    expect((await chargesOf(account.organizationId)).map((charge) => charge.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect((await getAutoTopUp(t.testDb.db, account, nextMonth)).heldBackReason).toBeNull();
  });

  it('a charge that leaves the balance below the threshold is followed by another, until the balance is at or above it', async () => {
    // $1 charges of a balance that fell to $2 under a $5 threshold: $3, $4, then $5.
    const account = await accountWithAutoTopUp(5.00003, { thresholdAmount: 5, topUpAmount: 1, monthlyCapAmount: 10 });
    await spend(account.value, 40);
    await adjustTo(account.organizationId, 2_000_000_000n);
    for (let round = 0; round < 5; round++) await rounds();
    expect((await chargesOf(account.organizationId)).map((charge) => charge.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect((await balanceOf(account.organizationId)).balance).toBe(5_000_000_000n);
  });

  it('turned off before its charge was sent, makes no charge and mails nobody', async () => {
    const account = await accountWithAutoTopUp(1.00003, { thresholdAmount: 1, topUpAmount: 1, monthlyCapAmount: 10 });
    await spend(account.value, 40);
    expect((await chargesOf(account.organizationId)).map((charge) => charge.status)).toEqual(['pending']);
    await saveAutoTopUp(
      t.testDb.db,
      { organizationId: account.organizationId, personId: null, email: 'system' },
      { enabled: false, thresholdAmount: 1, topUpAmount: 1, monthlyCapAmount: 10 },
      new Date(),
    );
    const [first, other] = await rounds();
    expect(first!.mailed + other!.mailed).toBe(0);
    expect(await chargesOf(account.organizationId)).toMatchObject([
      { status: 'failed', failureMessage: 'Auto top-up was turned off before the charge was made.' },
    ]);
    expect((await balanceOf(account.organizationId)).balance).toBeLessThan(1_000_000_000n);
  });
});

import { decodedText, startMailCatcher, subjectOf } from '@meterway/service/mail-catcher';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { autoTopUpCharges } from '../../db/schema/index.js';
import { postEntry } from '../../domain/credit/ledger.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { setupTestApp, type TestMember } from '../../testing/setup-test-app.js';

let mail: Awaited<ReturnType<typeof startMailCatcher>>;
// The worker runs every 100 ms and mails through a real SMTP server.
const env: NodeJS.ProcessEnv = { AUTO_TOP_UP_INTERVAL_MS: '100', CONSOLE_URL: 'https://console.example.com' };
beforeAll(async () => {
  mail = await startMailCatcher();
  env.SMTP_URL = mail.url;
});
afterAll(async () => mail?.close());
// The worker's rounds, for waiting on them instead of sleeping.
const roundWaiters: (() => void)[] = [];
const t = setupTestApp(env, { identity: true, onAutoTopUpRound: () => roundWaiters.splice(0).forEach((resolve) => resolve()) });
/** Once `count` more rounds of the worker have finished. */
async function rounds(count: number) {
  for (let round = 0; round < count; round++) await new Promise<void>((resolve) => roundWaiters.push(resolve));
}
afterEach(async () => expectLedgerConsistent(t.testDb.db));

type Json = Record<string, any>;
type User = TestMember;

const signUp = () => t.signUpMember();

const call = (user: User, method: 'GET' | 'PUT' | 'POST', url: string, payload?: Json) =>
  t.app.inject({ method, url, headers: { cookie: user.cookie }, ...(payload ? { payload } : {}) });
const settingsOf = async (user: User) => (await call(user, 'GET', '/bff/auto-top-up')).json();
const put = (user: User, payload: Json) => call(user, 'PUT', '/bff/auto-top-up', payload);
const on = { enabled: true, thresholdAmount: 5, topUpAmount: 20, monthlyCapAmount: 100 };

/** Saves a card through the setup session and the sandbox's confirm, as the console does. */
async function saveCard(user: User, cardNumber: string) {
  const started = await call(user, 'POST', '/bff/auto-top-up/payment-method');
  expect(started.statusCode, started.body).toBe(200);
  const { checkoutSessionId, clientSecret } = started.json();
  const confirmed = await t.app.inject({
    method: 'POST',
    url: `/sandbox/checkout-sessions/${checkoutSessionId}/confirm`,
    payload: { clientSecret, cardNumber, expiry: '12 / 34', cvc: '123' },
  });
  return { checkoutSessionId, clientSecret, confirmed };
}

/** Reads after each round of the worker until the read shows it done. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const value = await read();
    if (done(value)) return value;
    await rounds(1);
  }
  throw new Error(`${what} did not happen`);
}

const balanceOf = async (user: User) => (await call(user, 'GET', '/bff/me')).json().remainingSpendAmount as number;
const chargesOf = (user: User) => t.testDb.db.select().from(autoTopUpCharges).where(eq(autoTopUpCharges.organizationId, user.organizationId));

describe('GET and PUT /bff/auto-top-up', () => {
  it('starts off with the defaults and no card, and refuses to turn on without a saved card (409)', async () => {
    const user = await signUp();
    expect(await settingsOf(user)).toEqual({
      enabled: false,
      thresholdAmount: 5,
      topUpAmount: 20,
      monthlyCapAmount: 100,
      chargedThisMonthAmount: 0,
      paymentMethod: null,
      disabledReason: null,
      heldBackReason: null,
    });
    const refused = await put(user, on);
    expect(refused.statusCode).toBe(409);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({ status: 409, detail: 'Save a card before turning on auto top-up.' });
    // Saving it off needs no card.
    expect((await put(user, { ...on, enabled: false, thresholdAmount: 7 })).json()).toMatchObject({ enabled: false, thresholdAmount: 7 });
  });

  it.each([
    ['a threshold below $1', { ...on, thresholdAmount: 0.5 }, 'thresholdAmount', 'Minimum is 1'],
    ['a top-up above $100', { ...on, topUpAmount: 101, monthlyCapAmount: 200 }, 'topUpAmount', 'Maximum is 100'],
    ['a cap above $1,000', { ...on, monthlyCapAmount: 1_001 }, 'monthlyCapAmount', 'Maximum is 1000'],
    ['a cap below the top-up', { ...on, topUpAmount: 50, monthlyCapAmount: 40 }, 'monthlyCapAmount', 'The monthly cap must be at least the top-up amount'],
    ['fractions of a cent', { ...on, topUpAmount: 20.005 }, 'topUpAmount', 'At most 2 decimals'],
    ['no enabled', { thresholdAmount: 5, topUpAmount: 20, monthlyCapAmount: 100 }, 'enabled', 'This field is required'],
  ])('refuses %s with a 400 problem naming the field', async (_case, payload, field, message) => {
    const user = await signUp();
    const response = await put(user, payload);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 400, code: 'BadRequest', errors: [{ field, message }] });
  });

  it('is seen by every role and changed by owners, admins and billing: a developer gets 403', async () => {
    const member = await signUp();
    for (const role of ['admin', 'billing', 'developer'] as const) {
      await t.setRole(member, role);
      expect((await call(member, 'GET', '/bff/auto-top-up')).statusCode, role).toBe(200);
      expect((await put(member, { ...on, enabled: false })).statusCode, role).toBe(role === 'developer' ? 403 : 200);
      expect((await call(member, 'POST', '/bff/auto-top-up/payment-method')).statusCode, role).toBe(role === 'developer' ? 403 : 200);
    }
  });
});

describe('saving a card (setup session, sandbox confirm)', () => {
  it('saves a good test card (brand and last 4 only) without moving money, and refuses a card that declines', async () => {
    const user = await signUp();
    const declined = await saveCard(user, '4000000000000002');
    expect(declined.confirmed.statusCode).toBe(402);
    expect((await settingsOf(user)).paymentMethod).toBeNull();

    const { checkoutSessionId, clientSecret, confirmed } = await saveCard(user, '4242424242424242');
    expect(confirmed.statusCode).toBe(202);
    expect((await settingsOf(user)).paymentMethod).toEqual({ brand: 'visa', last4: '4242' });
    const summary = await t.app.inject({ method: 'GET', url: `/sandbox/checkout-sessions/${checkoutSessionId}?client_secret=${clientSecret}` });
    expect(summary.json()).toMatchObject({ mode: 'setup', status: 'SUCCEEDED', credit: 0, total: 0 });
    expect(await balanceOf(user)).toBe(0);
    // A session saves once.
    const again = await t.app.inject({
      method: 'POST',
      url: `/sandbox/checkout-sessions/${checkoutSessionId}/confirm`,
      payload: { clientSecret, cardNumber: '5555555555554444', expiry: '12/34', cvc: '123' },
    });
    expect(again.statusCode).toBe(409);
    expect((await settingsOf(user)).paymentMethod).toEqual({ brand: 'visa', last4: '4242' });
    // The sandbox's Invoices list top-ups only: saving a card took no money.
    const { url } = (await call(user, 'POST', '/bff/stripe/customer-portal-session')).json();
    const invoices = await t.app.inject({ method: 'GET', url: url.slice(url.indexOf('/sandbox/')) });
    expect(invoices.body).toContain('No top-ups yet.');
  });
});

describe('charging the saved card', () => {
  it('turned on below the threshold, charges the top-up at once, once, and credits it', async () => {
    const user = await signUp();
    await saveCard(user, '4242424242424242');
    const saved = await put(user, on);
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ enabled: true, chargedThisMonthAmount: 20, disabledReason: null });
    expect(
      await until(
        () => balanceOf(user),
        (balance) => balance === 20,
        'the charge',
      ),
    ).toBe(20);
    // Saving again (still below nothing: $20 ≥ $5) claims nothing more.
    expect((await put(user, { ...on, topUpAmount: 25 })).json()).toMatchObject({ chargedThisMonthAmount: 20, topUpAmount: 25 });
    expect((await chargesOf(user)).map((charge) => charge.status)).toEqual(['succeeded']);

    const history = (await call(user, 'GET', '/bff/credit-history')).json();
    expect(history.items).toMatchObject([{ kind: 'auto_top_up', amount: 20, balanceAfter: 20 }]);

    // The audit log names who saved the card and changed the settings; the charge's credit is the system's.
    const audit = async (action: string) => (await call(user, 'GET', `/bff/audit-log?action=${action}`)).json().items;
    expect(await audit('auto_top_up.card_saved')).toMatchObject([{ actorEmail: user.email, target: 'visa •••• 4242' }]);
    expect(await audit('auto_top_up.updated')).toMatchObject([
      { actorEmail: user.email, changes: { topUpAmount: { from: 20, to: 25 } } },
      { actorEmail: user.email, changes: { enabled: { from: false, to: true } } },
    ]);
    expect(await audit('credit.added')).toMatchObject([{ actorEmail: 'system', target: '$20.00', changes: { balance: { from: 0, to: 20 } } }]);
  });

  it('held back by the monthly cap, says so beside ON; raising the cap charges at once, with no call needed', async () => {
    const user = await signUp();
    await saveCard(user, '4242424242424242');
    const capped = { enabled: true, thresholdAmount: 5, topUpAmount: 20, monthlyCapAmount: 30 };
    expect((await put(user, capped)).statusCode).toBe(200);
    await until(
      () => balanceOf(user),
      (balance) => balance === 20,
      'the first charge',
    );
    // The balance falls below $5 again (a refund of part of it, say): a second $20 would pass the $30 cap.
    await t.testDb.db.transaction((tx) =>
      postEntry(tx, { organizationId: user.organizationId, kind: 'adjustment', amountNanos: -17_000_000_000n, reference: `spent-${user.personId}` }),
    );
    await rounds(2);
    expect(await settingsOf(user)).toMatchObject({
      enabled: true,
      chargedThisMonthAmount: 20,
      heldBackReason:
        "The balance is below $5.00, but another $20.00 would take this month's charges ($20.00) past the monthly cap of $30.00. Raise the cap or add credit.",
    });
    expect(await chargesOf(user)).toHaveLength(1);

    const raised = await put(user, { ...capped, monthlyCapAmount: 100 });
    expect(raised.json()).toMatchObject({ chargedThisMonthAmount: 40, heldBackReason: null });
    expect(
      await until(
        () => balanceOf(user),
        (balance) => balance === 23,
        'the second charge',
      ),
    ).toBe(23);
    await rounds(2);
    expect((await chargesOf(user)).map((charge) => charge.status)).toEqual(['succeeded', 'succeeded']);
  });

  it.each([
    ['4000000000000341', 'Your card was declined.'],
    ['4000002760003184', 'Your card was declined. This transaction requires authentication.'],
  ])('with card %s, a failed charge turns auto top-up off with the reason, and mails the people once', async (cardNumber, reason) => {
    const user = await signUp();
    const saved = await saveCard(user, cardNumber);
    expect(saved.confirmed.statusCode).toBe(202);
    await t.testDb.db.transaction((tx) =>
      postEntry(tx, { organizationId: user.organizationId, kind: 'top_up', amountNanos: 2_000_000_000n, reference: `cs_${user.personId}` }),
    );
    expect((await put(user, on)).statusCode).toBe(200);

    const off = await until(
      () => settingsOf(user),
      (settings) => !settings.enabled,
      'turning off',
    );
    expect(off).toMatchObject({ enabled: false, disabledReason: reason, chargedThisMonthAmount: 0, paymentMethod: { last4: cardNumber.slice(-4) } });
    const message = await mail.waitForMail(user.email);
    expect(subjectOf(message)).toBe('Auto top-up failed: $20.00 could not be charged');
    expect(decodedText(message)).toContain(reason);
    await until(
      () => chargesOf(user),
      (charges) => charges[0]?.failureMailedAt !== null,
      'marking mailed',
    );
    // Rounds later, still one mail, no credit, and turning it on again clears the reason.
    await rounds(3);
    expect(mail.mailsTo(user.email)).toHaveLength(1);
    expect(await balanceOf(user)).toBe(2);
    await saveCard(user, '4242424242424242');
    expect((await settingsOf(user)).disabledReason).toBe(reason);
    expect((await put(user, on)).json()).toMatchObject({ enabled: true, disabledReason: null, chargedThisMonthAmount: 20 });
    expect(
      await until(
        () => balanceOf(user),
        (balance) => balance === 22,
        'the charge',
      ),
    ).toBe(22);
  });
});

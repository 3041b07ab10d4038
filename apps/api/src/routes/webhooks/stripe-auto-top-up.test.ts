import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { autoTopUpCharges, checkoutSessions, creditEntries, paymentEvents, paymentObjects } from '../../db/schema/index.js';
import { postEntry } from '../../domain/credit/ledger.js';
import { stripeProvider } from '../../domain/payments/stripe-provider.js';
import type { TestPaymentMethod } from '../../testing/fake-stripe-intents.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { setupStripeWebhooks, webhookSecret } from '../../testing/stripe-webhooks.js';

// The auto top-up worker sends claimed charges every 100 ms, as it does every few seconds in production.
const { fake, t, deliver, expectReceived, topUp } = setupStripeWebhooks({ AUTO_TOP_UP_INTERVAL_MS: '100' });

afterEach(async () => {
  await expectLedgerConsistent(t.testDb.db);
});

type User = { cookie: string; organizationId: string };

async function signUp(): Promise<User> {
  const { cookie } = await t.users.signUp();
  const me = (await t.app.inject({ method: 'GET', url: '/bff/me', headers: { cookie } })).json();
  return { cookie, organizationId: me.organizationId };
}

const call = (user: User, method: 'GET' | 'PUT' | 'POST', url: string, payload?: Record<string, unknown>) =>
  t.app.inject({ method, url, headers: { cookie: user.cookie }, ...(payload ? { payload } : {}) });
const settingsOf = async (user: User) => (await call(user, 'GET', '/bff/auto-top-up')).json();
const balanceOf = async (user: User) => (await call(user, 'GET', '/bff/me')).json().remainingSpendAmount as number;
const on = { enabled: true, thresholdAmount: 5, topUpAmount: 20, monthlyCapAmount: 100 };

/** The console's card setup, the holder confirming with a test card at Stripe, and Stripe's completed event. */
async function saveCard(user: User, card: TestPaymentMethod = 'pm_card_visa') {
  const started = await call(user, 'POST', '/bff/auto-top-up/payment-method');
  expect(started.statusCode, started.body).toBe(200);
  const { checkoutSessionId } = started.json();
  const method = fake.completeSetup(checkoutSessionId, card);
  const completed = fake.event('checkout.session.completed', checkoutSessionId);
  await expectReceived(completed);
  return { checkoutSessionId: checkoutSessionId as string, method, completed };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not happen`);
}

const chargesOf = (user: User) => t.testDb.db.select().from(autoTopUpCharges).where(eq(autoTopUpCharges.organizationId, user.organizationId));

/** Turns auto top-up on below the threshold, so a charge is claimed at once; waits for the worker to send it to Stripe. */
async function chargeOnce(user: User) {
  expect((await call(user, 'PUT', '/bff/auto-top-up', on)).statusCode).toBe(200);
  const [charge] = await until(
    () => chargesOf(user),
    (charges) => charges[0]?.paymentIntentId != null,
    'sending the charge',
  );
  if (!charge) throw new Error('no charge');
  return { charge, intent: fake.paymentIntentOf(charge.id) };
}

const creditsOf = (chargeId: string) =>
  t.testDb.db
    .select()
    .from(creditEntries)
    .where(and(eq(creditEntries.kind, 'auto_top_up'), eq(creditEntries.reference, chargeId)));

/**
 * A charge made as the worker makes it whose answer was lost (the instance stopped): the row stays
 * processing and only the webhooks can settle it. Turned on above the threshold, so nothing else is claimed.
 */
async function chargeWithLostAnswer(card: TestPaymentMethod) {
  const user = await signUp();
  const { method } = await saveCard(user, card);
  await t.testDb.db.transaction((tx) =>
    postEntry(tx, { organizationId: user.organizationId, kind: 'adjustment', amountNanos: 50_000_000_000n, reference: randomUUID() }),
  );
  expect((await call(user, 'PUT', '/bff/auto-top-up', on)).statusCode).toBe(200);
  const chargeId = randomUUID();
  const amountNanos = 20_000_000_000n;
  await t.testDb.db
    .insert(autoTopUpCharges)
    .values({ id: chargeId, organizationId: user.organizationId, provider: 'stripe', amountNanos, status: 'processing' });
  const provider = stripeProvider({ stripe: fake.stripe, db: t.testDb.db, publishableKey: 'pk_test_meterway', webhookSecret, automaticTax: false });
  const outcome = await provider.chargeSavedCard({ chargeId, organizationId: user.organizationId, amountNanos, paymentMethodId: method.id });
  const chargeRow = async () => (await t.testDb.db.select().from(autoTopUpCharges).where(eq(autoTopUpCharges.id, chargeId)))[0];
  return { user, chargeId, outcome, intent: fake.paymentIntentOf(chargeId), chargeRow };
}

describe('Stripe setup sessions: saving the card', () => {
  it('saves the card of a completed setup session: GET /bff/auto-top-up shows its brand and last 4; replays are duplicates', async () => {
    const user = await signUp();
    const { checkoutSessionId, method, completed } = await saveCard(user, 'pm_card_mastercard');
    expect((await settingsOf(user)).paymentMethod).toEqual({ brand: 'mastercard', last4: '4444' });
    const setupIntent = fake.session(checkoutSessionId).setup_intent ?? '';
    expect(fake.requestsTo('GET', `/v1/setup_intents/${setupIntent}`).at(-1)?.params).toEqual({ expand: ['payment_method'] });
    const [session] = await t.testDb.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, checkoutSessionId));
    expect(session).toMatchObject({ mode: 'setup', status: 'SUCCEEDED', creditNanos: 0n });
    expect(await balanceOf(user)).toBe(0);

    for (let replay = 0; replay < 3; replay++) await expectReceived(completed);
    expect(await t.testDb.db.select().from(paymentEvents).where(eq(paymentEvents.id, completed.id))).toHaveLength(1);
    expect(method.customer).toBe(fake.session(checkoutSessionId).customer);

    // A second setup replaces the card.
    await saveCard(user, 'pm_card_visa');
    expect((await settingsOf(user)).paymentMethod).toEqual({ brand: 'visa', last4: '4242' });
  });

  it('saves nothing for a setup session that expired, or one whose completion is only claimed by a stale snapshot', async () => {
    const user = await signUp();
    const started = (await call(user, 'POST', '/bff/auto-top-up/payment-method')).json();
    // The event says complete, but Stripe (re-read) says the session is still open: nothing is saved.
    await expectReceived(fake.event('checkout.session.completed', started.checkoutSessionId, { status: 'complete' }));
    expect((await settingsOf(user)).paymentMethod).toBeNull();
    fake.expire(started.checkoutSessionId);
    await expectReceived(fake.event('checkout.session.expired', started.checkoutSessionId));
    const [session] = await t.testDb.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, started.checkoutSessionId));
    expect(session?.status).toBe('EXPIRED');
    expect((await settingsOf(user)).paymentMethod).toBeNull();
  });

  it('still credits a top-up’s completed checkout (payment mode) as before', async () => {
    const user = await signUp();
    const id = await topUp(user.cookie, 15);
    fake.complete(id);
    await expectReceived(fake.event('checkout.session.completed', id));
    expect(await balanceOf(user)).toBe(15);
    // Its PaymentIntent names no auto top-up charge: its events are ignored.
    const paymentIntent = fake.session(id).payment_intent ?? '';
    await expectReceived(fake.event('payment_intent.succeeded', paymentIntent, { object: 'payment_intent', metadata: {} }));
    expect(await balanceOf(user)).toBe(15);
  });
});

describe('Stripe off-session charges: payment_intent webhooks', () => {
  it('charges the saved card off-session and credits on payment_intent.succeeded, once however often it is delivered', async () => {
    const user = await signUp();
    const { method } = await saveCard(user);
    const { charge, intent } = await chargeOnce(user);
    expect(intent).toMatchObject({ amount: 2000, currency: 'usd', payment_method: method.id, customer: method.customer, status: 'succeeded' });
    expect(fake.requestsTo('POST', '/v1/payment_intents').find((request) => request.headers['idempotency-key'] === `auto-top-up-${charge.id}`)).toBeDefined();
    // Stripe answered succeeded, but the credit waits for the signed event.
    expect(charge.status).toBe('processing');
    expect(await balanceOf(user)).toBe(0);

    const succeeded = fake.event('payment_intent.succeeded', intent.id);
    const responses = await Promise.all(Array.from({ length: 5 }, () => deliver(succeeded)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(5).fill(200));
    await expectReceived(succeeded);
    expect(await balanceOf(user)).toBe(20);
    expect(await creditsOf(charge.id)).toHaveLength(1);
    expect((await chargesOf(user)).map(({ status, paymentIntentId }) => ({ status, paymentIntentId }))).toEqual([
      { status: 'succeeded', paymentIntentId: intent.id },
    ]);
    expect(await settingsOf(user)).toMatchObject({ enabled: true, chargedThisMonthAmount: 20, disabledReason: null });

    // Stripe's receipt of the charge, read with the PaymentIntent, is the history line's receipt.
    expect(fake.requestsTo('GET', `/v1/payment_intents/${intent.id}`).at(-1)?.params).toEqual({ expand: ['latest_charge'] });
    const receiptUrl = fake.charges.get(fake.intents.paymentIntents.get(intent.id)?.latest_charge ?? '')?.receipt_url;
    expect(receiptUrl).toMatch(/^https:\/\/pay\.stripe\.com\/receipts\//);
    const history = (await call(user, 'GET', '/bff/credit-history')).json();
    expect(history.items).toEqual([expect.objectContaining({ kind: 'auto_top_up', amount: 20, receiptUrl })]);
  });

  it.each([
    ['pm_card_chargeCustomerFail', 'Your card was declined.'],
    ['pm_card_authenticationRequired', 'Your card was declined. This transaction requires authentication.'],
  ] as const)('a charge of %s fails: auto top-up turns off with Stripe’s reason; its payment_failed event changes nothing more', async (card, reason) => {
    const user = await signUp();
    await saveCard(user, card);
    const { charge, intent } = await chargeOnce(user);
    const off = await until(
      () => settingsOf(user),
      (settings) => !settings.enabled,
      'turning off',
    );
    expect(off).toMatchObject({ enabled: false, disabledReason: reason, chargedThisMonthAmount: 0 });
    await expectReceived(fake.event('payment_intent.payment_failed', intent.id));
    expect((await chargesOf(user)).map(({ status, failureMessage }) => ({ status, failureMessage }))).toEqual([{ status: 'failed', failureMessage: reason }]);
    expect(await creditsOf(charge.id)).toHaveLength(0);
    expect(await balanceOf(user)).toBe(0);
  });

  it('payment_intent.payment_failed alone fails a charge still processing, with last_payment_error’s message', async () => {
    const { user, outcome, intent, chargeRow } = await chargeWithLostAnswer('pm_card_authenticationRequired');
    expect(outcome).toMatchObject({ outcome: 'failed', code: 'authentication_required' });
    await expectReceived(fake.event('payment_intent.payment_failed', intent.id));
    const reason = 'Your card was declined. This transaction requires authentication.';
    expect(await settingsOf(user)).toMatchObject({ enabled: false, disabledReason: reason });
    expect(await chargeRow()).toMatchObject({ status: 'failed', failureMessage: reason, paymentIntentId: intent.id });
  });

  it('a payment_failed delivered after the holder authenticated pays the charge: Stripe’s PaymentIntent now says succeeded', async () => {
    const { user, chargeId, intent, chargeRow } = await chargeWithLostAnswer('pm_card_authenticationRequired');
    const failed = fake.event('payment_intent.payment_failed', intent.id);
    fake.intents.authenticate(intent.id);
    await expectReceived(failed);
    expect(await chargeRow()).toMatchObject({ status: 'succeeded', failureMessage: null, paymentIntentId: intent.id });
    expect(await settingsOf(user)).toMatchObject({ enabled: true, disabledReason: null });
    expect(await creditsOf(chargeId)).toHaveLength(1);
    await expectReceived(fake.event('payment_intent.succeeded', intent.id));
    expect(await creditsOf(chargeId)).toHaveLength(1);
    expect(await balanceOf(user)).toBe(70);
  });

  // Stripe guarantees no order; the PaymentIntent as Stripe has it now decides.
  it('a late payment_failed after payment_intent.succeeded leaves the charge paid and auto top-up on', async () => {
    const user = await signUp();
    await saveCard(user);
    const { charge, intent } = await chargeOnce(user);
    const staleFailure = fake.event('payment_intent.payment_failed', intent.id, { status: 'requires_payment_method' });
    await expectReceived(fake.event('payment_intent.succeeded', intent.id));
    await expectReceived(staleFailure);
    expect((await chargesOf(user)).map(({ status }) => status)).toEqual(['succeeded']);
    expect(await settingsOf(user)).toMatchObject({ enabled: true, disabledReason: null });
    expect(await creditsOf(charge.id)).toHaveLength(1);
    expect(await balanceOf(user)).toBe(20);
  });

  it('payment_failed (authentication required), then succeeded once the holder authenticated: credited once, in either order', async () => {
    for (const order of ['failed first', 'succeeded first'] as const) {
      const user = await signUp();
      await saveCard(user, 'pm_card_authenticationRequired');
      const { charge, intent } = await chargeOnce(user);
      await until(
        () => settingsOf(user),
        (settings) => !settings.enabled,
        'turning off',
      );
      const failed = fake.event('payment_intent.payment_failed', intent.id);
      fake.intents.authenticate(intent.id);
      const succeeded = fake.event('payment_intent.succeeded', intent.id);
      for (const event of order === 'failed first' ? [failed, succeeded] : [succeeded, failed]) await expectReceived(event);
      await expectReceived(succeeded);

      expect(
        (await chargesOf(user)).map(({ status }) => status),
        order,
      ).toEqual(['succeeded']);
      expect(await creditsOf(charge.id), order).toHaveLength(1);
      expect(await balanceOf(user), order).toBe(20);
      // The failure turned auto top-up off; a later success pays but does not turn it back on by itself.
      expect(await settingsOf(user), order).toMatchObject({ enabled: false, chargedThisMonthAmount: 20 });
    }
  });

  it('credits nothing for an event naming the charge under another organisation, or whose payment Stripe says is another’s; once for its own', async () => {
    const user = await signUp();
    const other = await signUp();
    await saveCard(user);
    const { charge, intent } = await chargeOnce(user);
    // The payment is in the directory under its organisation from the moment the charge knows it.
    const directory = () => t.testDb.db.select().from(paymentObjects).where(eq(paymentObjects.id, intent.id));
    expect(await directory()).toMatchObject([{ provider: 'stripe', organizationId: user.organizationId }]);

    const forged = fake.event('payment_intent.succeeded', intent.id, { metadata: { auto_top_up_charge_id: charge.id, organization_id: other.organizationId } });
    await expectReceived(forged);
    expect(await t.testDb.db.select().from(paymentEvents).where(eq(paymentEvents.id, forged.id))).toEqual([]);
    // The event names the right organisation, but Stripe's own copy of the payment names another: not this charge's money.
    intent.metadata = { ...intent.metadata, organization_id: other.organizationId };
    await expectReceived(
      fake.event('payment_intent.succeeded', intent.id, { metadata: { auto_top_up_charge_id: charge.id, organization_id: user.organizationId } }),
    );
    intent.metadata = { ...intent.metadata, organization_id: user.organizationId };
    expect(await creditsOf(charge.id)).toHaveLength(0);
    expect([await balanceOf(user), await balanceOf(other)]).toEqual([0, 0]);

    const succeeded = fake.event('payment_intent.succeeded', intent.id);
    await Promise.all([deliver(succeeded), deliver(succeeded)]);
    await expectReceived(succeeded);
    await expectReceived(fake.event('payment_intent.succeeded', intent.id));
    expect([await balanceOf(user), await balanceOf(other)]).toEqual([20, 0]);
    expect(await creditsOf(charge.id)).toHaveLength(1);
    expect(await directory()).toHaveLength(1);
  });

  it('ignores payment_intent events naming no charge of ours, or a charge whose amount the payment does not match', async () => {
    const user = await signUp();
    await saveCard(user);
    const { charge, intent } = await chargeOnce(user);
    await expectReceived(fake.event('payment_intent.succeeded', intent.id, { metadata: { auto_top_up_charge_id: 'not-a-uuid' } }));
    await expectReceived(fake.event('payment_intent.succeeded', intent.id, { metadata: { auto_top_up_charge_id: randomUUID() } }));
    expect(await balanceOf(user)).toBe(0);
    // Stripe's own copy is re-read: a payment of another amount does not pay this charge.
    intent.amount = 1999;
    await expectReceived(fake.event('payment_intent.succeeded', intent.id));
    intent.amount = 2000;
    expect(await creditsOf(charge.id)).toHaveLength(0);
    await expectReceived(fake.event('payment_intent.succeeded', intent.id));
    expect(await balanceOf(user)).toBe(20);
  });
});

describe('Stripe refunds and disputes of an auto top-up charge', () => {
  /** An auto top-up charged and credited, as the worker and Stripe's webhook do it; returns its Stripe charge. */
  async function creditedCharge(user: User) {
    await saveCard(user);
    const { charge, intent } = await chargeOnce(user);
    await expectReceived(fake.event('payment_intent.succeeded', intent.id));
    expect(await balanceOf(user)).toBe(20);
    return { charge, stripeCharge: fake.chargeOfAutoTopUp(charge.id) };
  }
  const owedOf = async (user: User) => (await call(user, 'GET', '/bff/me')).json().owedAmount as number;
  const ledgerOf = async (user: User) =>
    (await t.testDb.db.select().from(creditEntries).where(eq(creditEntries.organizationId, user.organizationId)).orderBy(creditEntries.createdAt)).map(
      (entry) => [entry.kind, Number(entry.amountNanos) / 1e9],
    );

  it('a full refund takes the $20 back, and a lost dispute after it takes nothing more (no friendly fraud)', async () => {
    const user = await signUp();
    const { charge, stripeCharge } = await creditedCharge(user);
    const refunded = fake.event('charge.refunded', fake.refund(stripeCharge).id);
    await expectReceived(refunded);
    await expectReceived(refunded);
    expect(await balanceOf(user)).toBe(0);

    const dispute = fake.dispute(stripeCharge);
    await expectReceived(fake.event('charge.dispute.created', dispute.id));
    fake.closeDispute(dispute.id, 'lost');
    await expectReceived(fake.event('charge.dispute.closed', dispute.id));
    expect({ balance: await balanceOf(user), owed: await owedOf(user) }).toEqual({ balance: 0, owed: 0 });
    expect(await ledgerOf(user)).toEqual([
      ['auto_top_up', 20],
      ['refund', -20],
    ]);
    const [row] = await chargesOf(user);
    expect(row).toMatchObject({ id: charge.id, refundedNanos: 20_000_000_000n });
    const history = (await call(user, 'GET', '/bff/credit-history')).json();
    expect(history.items[0]).toMatchObject({ kind: 'refund', amount: -20 });
    // The card is not charged again by itself: auto top-up is off, and says why.
    expect(await settingsOf(user)).toMatchObject({
      enabled: false,
      disabledReason: 'An auto top-up charge of $20.00 was refunded',
    });
  });

  it('a partial refund takes its share; a dispute of the rest takes it and gives it back when won, whatever order the events come in', async () => {
    const user = await signUp();
    const { stripeCharge } = await creditedCharge(user);
    fake.refund(stripeCharge, 500);
    const dispute = fake.dispute(stripeCharge, 1500);
    const created = fake.event('charge.dispute.created', dispute.id);
    fake.closeDispute(dispute.id, 'won');
    const closed = fake.event('charge.dispute.closed', dispute.id);
    // The closing arrives first and is read as Stripe says now (won): it takes nothing; the late creation changes nothing.
    await expectReceived(closed);
    await expectReceived(created);
    expect(await balanceOf(user)).toBe(20);
    await expectReceived(fake.event('charge.refunded', stripeCharge.id));
    expect(await balanceOf(user)).toBe(15);
  });

  it('answers 503 to a refund of a charge not credited yet, and applies it once the payment’s success has come', async () => {
    const user = await signUp();
    await saveCard(user);
    const { charge, intent } = await chargeOnce(user);
    const refunded = fake.event('charge.refunded', fake.refund(fake.chargeOfAutoTopUp(charge.id), 800).id);
    expect((await deliver(refunded)).statusCode).toBe(503);
    await expectReceived(fake.event('payment_intent.succeeded', intent.id));
    await expectReceived(refunded);
    expect(await balanceOf(user)).toBe(12);
  });

  it('answers 503 to a refund of a charge whose payment was never recorded (its answer lost), named by the payment’s metadata', async () => {
    const { user, intent, chargeRow } = await chargeWithLostAnswer('pm_card_visa');
    expect((await chargeRow())?.paymentIntentId).toBeNull();
    const stripeCharge = fake.charges.get(intent.latest_charge ?? '');
    if (!stripeCharge) throw new Error('no charge');
    const refunded = fake.event('charge.refunded', fake.refund(stripeCharge).id);
    expect((await deliver(refunded)).statusCode).toBe(503);
    await expectReceived(fake.event('payment_intent.succeeded', intent.id));
    expect(await balanceOf(user)).toBe(70);
    await expectReceived(refunded);
    expect(await balanceOf(user)).toBe(50);
  });
});

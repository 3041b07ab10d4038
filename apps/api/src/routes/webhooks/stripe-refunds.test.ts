import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { checkoutSessions, creditEntries, paymentEvents, paymentObjects } from '../../db/schema/index.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { setupStripeWebhooks } from '../../testing/stripe-webhooks.js';

const { fake, t, topUp, deliver, expectReceived, strangerSession } = setupStripeWebhooks();

afterEach(async () => {
  await expectLedgerConsistent(t.testDb.db);
});

const appOrigin = 'https://app.example.com';

async function signedIn() {
  const { cookie } = await t.users.signUp();
  const me = (await t.app.inject({ method: 'GET', url: '/bff/me', headers: { cookie } })).json();
  return { cookie, organizationId: me.organizationId as string };
}

/** A top-up paid at Stripe and credited by its webhook. */
async function paidTopUp(cookie: string, amount: number) {
  const id = await topUp(cookie, amount);
  fake.complete(id);
  await expectReceived(fake.event('checkout.session.completed', id));
  return id;
}

/** What the account holder sees on the dashboard, in dollars. */
async function credit(cookie: string) {
  const me = (await t.app.inject({ method: 'GET', url: '/bff/me', headers: { cookie } })).json();
  return { balance: me.remainingSpendAmount as number, owed: me.owedAmount as number };
}

const directoryOf = (paymentIntentId: string) =>
  t.testDb.db
    .select({ provider: paymentObjects.provider, organizationId: paymentObjects.organizationId })
    .from(paymentObjects)
    .where(eq(paymentObjects.id, paymentIntentId));

async function entries(organizationId: string) {
  const rows = await t.testDb.db.select().from(creditEntries).where(eq(creditEntries.organizationId, organizationId)).orderBy(creditEntries.createdAt);
  return rows.map((row) => ({ kind: row.kind, amount: Number(row.amountNanos) / 1e9, owed: Number(row.owedNanos) / 1e9 }));
}

/** A publishable key made in the console, and one gateway call with it; the call's charge is settled before it returns. */
async function gatewayCall(cookie: string, key?: string) {
  const value =
    key ??
    (
      await t.app.inject({
        method: 'POST',
        url: '/bff/publishable-keys',
        headers: { cookie },
        payload: { name: 'App', budget: 50, budgetType: 'monthly', allowedOrigins: [appOrigin] },
      })
    ).json().value;
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${value}`, origin: appOrigin },
    payload: { model: 'meterway-demo', messages: [{ role: 'user', content: 'Hello.' }], max_tokens: 20 },
  });
  await t.app.meter.atRest();
  return { key: value as string, status: response.statusCode, body: response.json() };
}

describe('charge.refunded', () => {
  it('takes a fully refunded top-up back from the credit, with a refund entry', async () => {
    const { cookie, organizationId } = await signedIn();
    const id = await paidTopUp(cookie, 25);
    await expectReceived(fake.event('charge.refunded', fake.refund(id).id));
    expect(await credit(cookie)).toEqual({ balance: 0, owed: 0 });
    expect(await entries(organizationId)).toEqual([
      { kind: 'top_up', amount: 25, owed: 0 },
      { kind: 'refund', amount: -25, owed: 0 },
    ]);
  });

  it('takes two partial refunds back once each, whatever order their events arrive in', async () => {
    const { cookie, organizationId } = await signedIn();
    const id = await paidTopUp(cookie, 20);
    const first = fake.event('charge.refunded', fake.refund(id, 500).id);
    await expectReceived(first);
    expect(await credit(cookie)).toEqual({ balance: 15, owed: 0 });

    const second = fake.event('charge.refunded', fake.refund(id, 700).id);
    expect(second.data.object).toMatchObject({ amount_refunded: 1200 });
    // Delivered late and out of order: the first refund's event again after the second's.
    await expectReceived(second);
    await expectReceived(first);
    expect(await credit(cookie)).toEqual({ balance: 8, owed: 0 });
    expect((await entries(organizationId)).filter((entry) => entry.kind === 'refund')).toEqual([
      { kind: 'refund', amount: -5, owed: 0 },
      { kind: 'refund', amount: -7, owed: 0 },
    ]);
  });

  it('applies an event delivered ten times, some at once, once; a second event of the same refund adds nothing', async () => {
    const { cookie } = await signedIn();
    const id = await paidTopUp(cookie, 10);
    const charge = fake.refund(id, 400);
    const event = fake.event('charge.refunded', charge.id);
    const responses = await Promise.all(Array.from({ length: 9 }, () => deliver(event)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(9).fill(200));
    await expectReceived(event);
    await expectReceived(fake.event('charge.refunded', charge.id));
    expect(await credit(cookie)).toEqual({ balance: 6, owed: 0 });
    expect(await t.testDb.db.select().from(paymentEvents).where(eq(paymentEvents.id, event.id))).toHaveLength(1);
  });

  it('leaves the organisation owing what its credit cannot pay: its keys stop until a top-up pays the debt first', async () => {
    const { cookie, organizationId } = await signedIn();
    const id = await paidTopUp(cookie, 10);
    const spent = await gatewayCall(cookie);
    expect(spent.status).toBe(200);
    const { balance } = await credit(cookie);
    const cost = Math.round((10 - balance) * 1e9) / 1e9;
    expect(cost).toBeGreaterThan(0);

    await expectReceived(fake.event('charge.refunded', fake.refund(id).id));
    expect(await credit(cookie)).toEqual({ balance: 0, owed: cost });
    expect((await entries(organizationId)).at(-1)).toEqual({ kind: 'refund', amount: -balance, owed: cost });

    const refused = await gatewayCall(cookie, spent.key);
    expect(refused).toMatchObject({ status: 402, body: { error: { code: 'insufficient_quota' } } });

    const debtPayer = await paidTopUp(cookie, 5);
    expect(await credit(cookie)).toEqual({ balance: Math.round((5 - cost) * 1e9) / 1e9, owed: 0 });
    // The payment's status says what of it paid the debt.
    const outcome = await t.app.inject({ method: 'GET', url: `/bff/checkout-sessions/${debtPayer}`, headers: { cookie } });
    expect(outcome.json()).toEqual({ checkoutSessionId: debtPayer, status: 'SUCCEEDED', creditAmount: 5, owedPaidAmount: cost });
    const earlier = await t.app.inject({ method: 'GET', url: `/bff/checkout-sessions/${id}`, headers: { cookie } });
    expect(earlier.json()).toMatchObject({ creditAmount: 10, owedPaidAmount: 0 });
    expect((await entries(organizationId)).slice(-2)).toEqual([
      { kind: 'top_up', amount: 5, owed: 0 },
      { kind: 'owed_payment', amount: -cost, owed: -cost },
    ]);
    expect((await gatewayCall(cookie, spent.key)).status).toBe(200);
  });

  it('finds a top-up credited before its payment was recorded by asking Stripe, once', async () => {
    const { cookie, organizationId } = await signedIn();
    const id = await paidTopUp(cookie, 12);
    const paymentIntentId = fake.session(id).payment_intent ?? '';
    await t.testDb.db.update(checkoutSessions).set({ paymentIntentId: null }).where(eq(checkoutSessions.id, id));
    await t.testDb.db.delete(paymentObjects).where(eq(paymentObjects.id, paymentIntentId));
    const charge = fake.refund(id, 200);
    await expectReceived(fake.event('charge.refunded', charge.id));
    expect(await credit(cookie)).toEqual({ balance: 10, owed: 0 });
    const [row] = await t.testDb.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
    expect(row?.paymentIntentId).toBe(charge.payment_intent);
    // Recorded in the directory with it, under the organisation the session names: the next refund needs no question.
    expect(await directoryOf(paymentIntentId)).toEqual([{ provider: 'stripe', organizationId }]);
    expect(fake.requestsTo('GET', '/v1/checkout/sessions')).toHaveLength(1);
    await expectReceived(fake.event('charge.refunded', fake.refund(id, 300).id));
    expect(await credit(cookie)).toEqual({ balance: 7, owed: 0 });
    expect(fake.requestsTo('GET', '/v1/checkout/sessions')).toHaveLength(1);
  });

  it('finds the top-up of a refund and of a dispute through payment_objects, each applied once however often delivered', async () => {
    const { cookie, organizationId } = await signedIn();
    const other = await signedIn();
    await paidTopUp(other.cookie, 8);
    const id = await paidTopUp(cookie, 20);
    const paymentIntentId = fake.session(id).payment_intent ?? '';
    // Recorded with the payment, in the transaction that credited it.
    expect(await directoryOf(paymentIntentId)).toEqual([{ provider: 'stripe', organizationId }]);
    const listsBefore = fake.requestsTo('GET', '/v1/checkout/sessions').length;

    const refunded = fake.event('charge.refunded', fake.refund(id, 500).id);
    await Promise.all([deliver(refunded), deliver(refunded)]);
    await expectReceived(refunded);
    const created = fake.event('charge.dispute.created', fake.dispute(id, 1500).id);
    await Promise.all([deliver(created), deliver(created)]);
    await expectReceived(created);

    expect(await credit(cookie)).toEqual({ balance: 0, owed: 0 });
    expect(await entries(organizationId)).toEqual([
      { kind: 'top_up', amount: 20, owed: 0 },
      { kind: 'refund', amount: -5, owed: 0 },
      { kind: 'dispute', amount: -15, owed: 0 },
    ]);
    // Neither asked Stripe which session the payment was; the other organisation is untouched.
    expect(fake.requestsTo('GET', '/v1/checkout/sessions')).toHaveLength(listsBefore);
    expect(await credit(other.cookie)).toEqual({ balance: 8, owed: 0 });
  });

  it('answers 503 for a top-up whose payment is not credited yet, and applies the refund when Stripe delivers it again', async () => {
    const { cookie } = await signedIn();
    const id = await topUp(cookie, 9);
    fake.complete(id);
    const refunded = fake.event('charge.refunded', fake.refund(id, 300).id);
    expect((await deliver(refunded)).statusCode).toBe(503);
    await expectReceived(fake.event('checkout.session.completed', id));
    await expectReceived(refunded);
    expect(await credit(cookie)).toEqual({ balance: 6, owed: 0 });
  });

  it('acknowledges and posts nothing for a charge that paid no top-up of ours', async () => {
    const { cookie } = await signedIn();
    const stranger = await strangerSession();
    const event = fake.event('charge.refunded', fake.refund(stranger).id);
    await expectReceived(event);
    expect(await t.testDb.db.select().from(paymentEvents).where(eq(paymentEvents.id, event.id))).toEqual([]);
    expect(await credit(cookie)).toEqual({ balance: 0, owed: 0 });
  });

  it('answers 400 and changes nothing for a refund event with a bad signature', async () => {
    const { cookie } = await signedIn();
    const id = await paidTopUp(cookie, 10);
    const event = fake.event('charge.refunded', fake.refund(id).id);
    const response = await deliver(event, { secret: 'whsec_someone_else' });
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toMatch(/^Webhook signature verification failed: No signatures found matching/);
    expect(await credit(cookie)).toEqual({ balance: 10, owed: 0 });
    expect(fake.requestsTo('GET', `/v1/charges/${event.data.object.id}`)).toEqual([]);
  });
});

describe('charge.dispute.created and charge.dispute.closed', () => {
  it('takes the disputed amount back when the dispute opens and gives it back when it is won', async () => {
    const { cookie, organizationId } = await signedIn();
    const id = await paidTopUp(cookie, 30);
    const dispute = fake.dispute(id);
    await expectReceived(fake.event('charge.dispute.created', dispute.id));
    expect(await credit(cookie)).toEqual({ balance: 0, owed: 0 });

    fake.closeDispute(dispute.id, 'won');
    const closed = fake.event('charge.dispute.closed', dispute.id);
    await expectReceived(closed);
    await expectReceived(closed);
    // A late created event re-reads the dispute as won: nothing is taken again.
    await expectReceived(fake.event('charge.dispute.created', dispute.id));
    expect(await credit(cookie)).toEqual({ balance: 30, owed: 0 });
    expect((await entries(organizationId)).map((entry) => [entry.kind, entry.amount])).toEqual([
      ['top_up', 30],
      ['dispute', -30],
      ['dispute_won', 30],
    ]);
  });

  it('keeps the amount of a lost dispute taken, and a won dispute pays what it left owing first', async () => {
    const lost = await signedIn();
    const lostTopUp = await paidTopUp(lost.cookie, 15);
    const lostDispute = fake.dispute(lostTopUp, 1000);
    await expectReceived(fake.event('charge.dispute.created', lostDispute.id));
    fake.closeDispute(lostDispute.id, 'lost');
    await expectReceived(fake.event('charge.dispute.closed', lostDispute.id));
    expect(await credit(lost.cookie)).toEqual({ balance: 5, owed: 0 });

    const won = await signedIn();
    const wonTopUp = await paidTopUp(won.cookie, 10);
    await gatewayCall(won.cookie);
    const left = (await credit(won.cookie)).balance;
    const wonDispute = fake.dispute(wonTopUp);
    await expectReceived(fake.event('charge.dispute.created', wonDispute.id));
    expect(await credit(won.cookie)).toEqual({ balance: 0, owed: Math.round((10 - left) * 1e9) / 1e9 });
    fake.closeDispute(wonDispute.id, 'won');
    await expectReceived(fake.event('charge.dispute.closed', wonDispute.id));
    expect(await credit(won.cookie)).toEqual({ balance: left, owed: 0 });
  });

  it('never takes back more than the top-up for a dispute over an amount already refunded', async () => {
    const { cookie } = await signedIn();
    await paidTopUp(cookie, 5);
    const id = await paidTopUp(cookie, 20);
    await expectReceived(fake.event('charge.refunded', fake.refund(id, 1200).id));
    expect(await credit(cookie)).toEqual({ balance: 13, owed: 0 });
    // The cardholder disputes the whole charge, refunded part included.
    await expectReceived(fake.event('charge.dispute.created', fake.dispute(id, 2000).id));
    expect(await credit(cookie)).toEqual({ balance: 5, owed: 0 });
  });
});

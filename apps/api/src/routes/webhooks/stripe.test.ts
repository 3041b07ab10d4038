import { and, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { checkoutSessions, creditEntries, paymentEvents } from '../../db/schema/index.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { setupTestApp } from '../../testing/setup-test-app.js';
import { setupStripeWebhooks, webhookSecret } from '../../testing/stripe-webhooks.js';

const { fake, t, topUp, deliver, expectReceived, strangerSession } = setupStripeWebhooks();

afterEach(async () => {
  await expectLedgerConsistent(t.testDb.db);
});

type Event = ReturnType<typeof fake.event>;

async function signedIn() {
  return (await t.users.signUp()).cookie;
}

/** What the console sees: the session's status and the balance in dollars. */
async function seen(cookie: string, checkoutSessionId: string) {
  const me = (await t.app.inject({ method: 'GET', url: '/bff/me', headers: { cookie } })).json();
  const session = me.organizationCheckoutSessions.find((item: any) => item.checkoutSessionId === checkoutSessionId);
  return { status: session?.status, balance: me.remainingSpendAmount };
}

async function ledgerEntries(checkoutSessionId: string) {
  return t.testDb.db
    .select()
    .from(creditEntries)
    .where(and(eq(creditEntries.kind, 'top_up'), eq(creditEntries.reference, checkoutSessionId)));
}

async function recordedEvents(eventId: string) {
  return t.testDb.db.select().from(paymentEvents).where(eq(paymentEvents.id, eventId));
}

const retrievals = (checkoutSessionId: string) => fake.requestsTo('GET', `/v1/checkout/sessions/${checkoutSessionId}`).length;

describe('POST /webhooks/stripe', () => {
  it('credits a paid completion once and marks the session SUCCEEDED', async () => {
    const cookie = await signedIn();
    const id = await topUp(cookie, 25);
    expect(await seen(cookie, id)).toEqual({ status: 'IN_PROGRESS', balance: 0 });
    fake.complete(id);
    await expectReceived(fake.event('checkout.session.completed', id));
    expect(await seen(cookie, id)).toEqual({ status: 'SUCCEEDED', balance: 25 });
    expect(await ledgerEntries(id)).toHaveLength(1);
    expect(retrievals(id)).toBe(1);
  });

  it('keeps Stripe’s receipt of the charge: the credit history’s top-up line links it, paid at once or settled later', async () => {
    const cookie = await signedIn();
    const paidAtOnce = await topUp(cookie, 25);
    fake.complete(paidAtOnce);
    await expectReceived(fake.event('checkout.session.completed', paidAtOnce));
    expect(fake.requestsTo('GET', `/v1/checkout/sessions/${paidAtOnce}`).at(-1)?.params).toEqual({ expand: ['payment_intent.latest_charge'] });
    const settledLater = await topUp(cookie, 10);
    fake.complete(settledLater, 'unpaid');
    await expectReceived(fake.event('checkout.session.completed', settledLater));
    fake.settleAsync(settledLater, 'succeeded');
    await expectReceived(fake.event('checkout.session.async_payment_succeeded', settledLater));

    const { items } = (await t.app.inject({ method: 'GET', url: '/bff/credit-history', headers: { cookie } })).json();
    expect(items.map((item: any) => [item.kind, item.amount, item.receiptUrl])).toEqual([
      ['top_up', 10, fake.chargeOf(settledLater).receipt_url],
      ['top_up', 25, fake.chargeOf(paidAtOnce).receipt_url],
    ]);
    expect(items[0].receiptUrl).toMatch(/^https:\/\/pay\.stripe\.com\/receipts\//);
  });

  it('handles the same event delivered 10 times once, concurrent or not', async () => {
    const cookie = await signedIn();
    const id = await topUp(cookie, 10);
    fake.complete(id);
    const event = fake.event('checkout.session.completed', id);
    const responses = await Promise.all(Array.from({ length: 9 }, () => deliver(event)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(9).fill(200));
    const retrievalsBefore = retrievals(id);
    await expectReceived(event);
    expect(retrievals(id)).toBe(retrievalsBefore); // a known event id is answered without asking Stripe again
    expect(await seen(cookie, id)).toEqual({ status: 'SUCCEEDED', balance: 10 });
    expect(await ledgerEntries(id)).toHaveLength(1);
    expect(await recordedEvents(event.id)).toEqual([expect.objectContaining({ provider: 'stripe', id: event.id, type: 'checkout.session.completed' })]);
  });

  // Stripe guarantees no order: each scenario plays the payment at Stripe, then delivers the
  // events it produced in the order given.
  const orders: { name: string; play: (id: string) => Event[]; status: string; credited: boolean }[] = [
    {
      name: 'completed (unpaid, a delayed method), then async_payment_succeeded',
      play: (id) => {
        fake.complete(id, 'unpaid');
        const completed = fake.event('checkout.session.completed', id);
        fake.settleAsync(id, 'succeeded');
        return [completed, fake.event('checkout.session.async_payment_succeeded', id)];
      },
      status: 'SUCCEEDED',
      credited: true,
    },
    {
      name: 'async_payment_succeeded before the completed it follows',
      play: (id) => {
        fake.complete(id, 'unpaid');
        const completed = fake.event('checkout.session.completed', id);
        fake.settleAsync(id, 'succeeded');
        return [fake.event('checkout.session.async_payment_succeeded', id), completed];
      },
      status: 'SUCCEEDED',
      credited: true,
    },
    {
      name: 'async_payment_failed before the completed it follows',
      play: (id) => {
        fake.complete(id, 'unpaid');
        const completed = fake.event('checkout.session.completed', id);
        fake.settleAsync(id, 'failed');
        return [fake.event('checkout.session.async_payment_failed', id), completed];
      },
      status: 'FAILED',
      credited: false,
    },
    {
      name: 'completed (paid), then a stray async_payment_failed',
      play: (id) => {
        fake.complete(id, 'paid');
        return [fake.event('checkout.session.completed', id), fake.event('checkout.session.async_payment_failed', id)];
      },
      status: 'SUCCEEDED',
      credited: true,
    },
    {
      name: 'expired, then a paid completed (the buyer had already confirmed)',
      play: (id) => {
        fake.expire(id);
        const expired = fake.event('checkout.session.expired', id);
        fake.complete(id, 'paid');
        return [expired, fake.event('checkout.session.completed', id)];
      },
      status: 'SUCCEEDED',
      credited: true,
    },
    {
      name: 'completed (paid), then a late expired',
      play: (id) => {
        fake.complete(id, 'paid');
        return [fake.event('checkout.session.completed', id), fake.event('checkout.session.expired', id)];
      },
      status: 'SUCCEEDED',
      credited: true,
    },
  ];

  it.each(orders)('ends right after $name', async ({ play, status, credited }) => {
    const cookie = await signedIn();
    const id = await topUp(cookie, 20);
    for (const event of play(id)) await expectReceived(event);
    expect(await seen(cookie, id)).toEqual({ status, balance: credited ? 20 : 0 });
    expect(await ledgerEntries(id)).toHaveLength(credited ? 1 : 0);
  });

  it('keeps a completed but unpaid session IN_PROGRESS, then credits once when the delayed payment succeeds', async () => {
    const cookie = await signedIn();
    const id = await topUp(cookie, 15.5);
    fake.complete(id, 'unpaid');
    const completed = fake.event('checkout.session.completed', id);
    await expectReceived(completed);
    expect(await seen(cookie, id)).toEqual({ status: 'IN_PROGRESS', balance: 0 });
    fake.settleAsync(id, 'succeeded');
    const succeeded = fake.event('checkout.session.async_payment_succeeded', id);
    await expectReceived(succeeded);
    await expectReceived(succeeded);
    await expectReceived(completed);
    expect(await seen(cookie, id)).toEqual({ status: 'SUCCEEDED', balance: 15.5 });
    expect(await ledgerEntries(id)).toHaveLength(1);
  });

  it('marks a failed delayed payment FAILED with a message and credits nothing', async () => {
    const cookie = await signedIn();
    const id = await topUp(cookie, 30);
    fake.complete(id, 'unpaid');
    fake.settleAsync(id, 'failed');
    await expectReceived(fake.event('checkout.session.async_payment_failed', id));
    expect(await seen(cookie, id)).toEqual({ status: 'FAILED', balance: 0 });
    const [row] = await t.testDb.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id));
    expect(row?.failureMessage).toMatch(/could not be collected/);
    expect(await ledgerEntries(id)).toHaveLength(0);
  });

  it('marks an expired session EXPIRED', async () => {
    const cookie = await signedIn();
    const id = await topUp(cookie, 5);
    await fake.stripe.checkout.sessions.expire(id);
    await expectReceived(fake.event('checkout.session.expired', id));
    expect(await seen(cookie, id)).toEqual({ status: 'EXPIRED', balance: 0 });
  });

  it('believes Stripe, not the event: a payload claiming payment or another amount changes nothing of that', async () => {
    const cookie = await signedIn();
    const unpaid = await topUp(cookie, 40);
    await expectReceived(fake.event('checkout.session.completed', unpaid, { status: 'complete', payment_status: 'paid' }));
    expect(await seen(cookie, unpaid)).toEqual({ status: 'IN_PROGRESS', balance: 0 });

    const paid = await topUp(cookie, 40);
    fake.complete(paid);
    await expectReceived(fake.event('checkout.session.completed', paid, { amount_subtotal: 999_999, amount_total: 999_999 }));
    expect(await seen(cookie, paid)).toEqual({ status: 'SUCCEEDED', balance: 40 });
  });

  const forgeries: { name: string; options: (payload: Event) => Parameters<typeof deliver>[1]; reason: RegExp }[] = [
    { name: 'a signature made with another secret', options: () => ({ secret: 'whsec_someone_else' }), reason: /No signatures found matching/ },
    {
      name: 'a timestamp older than the 300 s tolerance',
      options: () => ({ timestamp: Math.floor(Date.now() / 1000) - 301 }),
      reason: /Timestamp outside the tolerance zone/,
    },
    { name: 'no Stripe-Signature header', options: () => ({ signature: null }), reason: /No stripe-signature header value was provided/ },
    { name: 'a malformed Stripe-Signature header', options: () => ({ signature: 'not-a-signature' }), reason: /Unable to extract timestamp and signatures/ },
    {
      name: 'a body altered after signing',
      options: (event) => ({ body: JSON.stringify({ ...event, data: { object: { ...event.data.object, amount_subtotal: 1_000_000 } } }, null, 2) }),
      reason: /No signatures found matching/,
    },
    {
      name: 'the same JSON re-serialised (not the bytes Stripe signed)',
      options: (event) => ({ body: JSON.stringify(event) }),
      reason: /No signatures found matching/,
    },
  ];

  it.each(forgeries)('answers 400 problem+json and changes nothing for $name', async ({ options, reason }) => {
    const cookie = await signedIn();
    const id = await topUp(cookie, 50);
    fake.complete(id);
    const event = fake.event('checkout.session.completed', id);
    const response = await deliver(event, options(event));
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 400, code: 'BadRequest', detail: expect.stringMatching(/^Webhook signature verification failed: /) });
    expect(response.json().detail).toMatch(reason);
    expect(response.body).not.toContain(webhookSecret);
    expect(await seen(cookie, id)).toEqual({ status: 'IN_PROGRESS', balance: 0 });
    expect(await recordedEvents(event.id)).toEqual([]);
    expect(retrievals(id)).toBe(0);
  });

  it('answers 400 for a correctly signed body that is not JSON', async () => {
    const body = 'this is not json';
    const response = await deliver({}, { body, signature: fake.stripe.webhooks.generateTestHeaderString({ payload: body, secret: webhookSecret }) });
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toBe('The webhook body is not a Stripe event.');
  });

  it('acknowledges and ignores event types it does not handle', async () => {
    const event = { ...fake.event('payment_intent.succeeded', 'pi_123'), data: { object: { id: 'pi_123', object: 'payment_intent', status: 'succeeded' } } };
    const requestsBefore = fake.requests.length;
    await expectReceived(event);
    expect(fake.requests.length).toBe(requestsBefore);
    expect(await recordedEvents(event.id)).toEqual([]);
  });

  it('credits nothing for a completion naming the session under another organisation (or none), then once for its own', async () => {
    const cookie = await signedIn();
    const other = await signedIn();
    const otherOrganization = (await t.app.inject({ method: 'GET', url: '/bff/me', headers: { cookie: other } })).json().organizationId as string;
    const id = await topUp(cookie, 15);
    fake.complete(id);
    const mismatched = [
      fake.event('checkout.session.completed', id, { metadata: { organizationId: otherOrganization }, client_reference_id: otherOrganization }),
      fake.event('checkout.session.completed', id, { metadata: {}, client_reference_id: null }),
      fake.event('checkout.session.completed', id, { metadata: { organizationId: 'not-an-organisation' } }),
    ];
    for (const event of mismatched) {
      await expectReceived(event);
      expect(await recordedEvents(event.id)).toEqual([]);
    }
    // Found by none of them: Stripe was not even asked.
    expect(retrievals(id)).toBe(0);
    expect(await seen(cookie, id)).toEqual({ status: 'IN_PROGRESS', balance: 0 });
    expect(await seen(other, id)).toEqual({ status: undefined, balance: 0 });

    const own = fake.event('checkout.session.completed', id);
    await Promise.all([deliver(own), deliver(own)]);
    await expectReceived(own);
    await expectReceived(fake.event('checkout.session.completed', id));
    expect(await seen(cookie, id)).toEqual({ status: 'SUCCEEDED', balance: 15 });
    expect(await ledgerEntries(id)).toHaveLength(1);
  });

  it('acknowledges and ignores sessions Meterway did not create', async () => {
    const stranger = await strangerSession();
    const event = fake.event('checkout.session.completed', stranger);
    await expectReceived(event);
    expect(retrievals(stranger)).toBe(0);
    expect(await recordedEvents(event.id)).toEqual([]);
    expect(await ledgerEntries(stranger)).toEqual([]);
  });

  it('answers 503 and records nothing while Stripe cannot be read, so Stripe’s retry credits later', async () => {
    const cookie = await signedIn();
    const id = await topUp(cookie, 12);
    fake.complete(id);
    const event = fake.event('checkout.session.completed', id);
    fake.failNext(500, { type: 'api_error', message: 'An unknown error occurred' });
    const failed = await deliver(event);
    expect(failed.statusCode).toBe(503);
    expect(await recordedEvents(event.id)).toEqual([]);
    expect(await seen(cookie, id)).toEqual({ status: 'IN_PROGRESS', balance: 0 });
    await expectReceived(event);
    expect(await seen(cookie, id)).toEqual({ status: 'SUCCEEDED', balance: 12 });
  });
});

describe('the console’s Stripe endpoints', () => {
  it('starts a top-up with Stripe’s session and client secret, returning to the console', async () => {
    const cookie = await signedIn();
    const response = await t.app.inject({ method: 'POST', url: '/bff/stripe/checkout-session', headers: { cookie }, payload: { amount: 42.5 } });
    expect(response.statusCode).toBe(200);
    const { checkoutSessionId, clientSecret } = response.json();
    const session = fake.session(checkoutSessionId);
    expect(clientSecret).toBe(session.client_secret);
    expect(session).toMatchObject({
      amount_subtotal: 4250,
      ui_mode: 'elements',
      return_url: 'https://console.example.com/add-credits?checkoutSessionId={CHECKOUT_SESSION_ID}',
    });
    const [row] = await t.testDb.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, checkoutSessionId));
    expect(row).toMatchObject({ provider: 'stripe', status: 'IN_PROGRESS', creditNanos: 42_500_000_000n, taxNanos: 0n, clientSecretHash: null });
  });

  it('returns the Stripe billing portal url for the organisation’s customer', async () => {
    const cookie = await signedIn();
    const id = await topUp(cookie, 5);
    const response = await t.app.inject({ method: 'POST', url: '/bff/stripe/customer-portal-session', headers: { cookie } });
    expect(response.statusCode).toBe(200);
    expect(response.json().url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\/test_/);
    expect(fake.requestsTo('POST', '/v1/billing_portal/sessions').at(-1)?.params).toEqual({
      customer: fake.session(id).customer,
      return_url: 'https://console.example.com/dashboard',
    });
  });

  it('tells the console Stripe is active, with the publishable key', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/bff/config' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ paymentProvider: 'stripe', stripePublishableKey: 'pk_test_meterway' });
  });
});

describe('Stripe built from the configuration', () => {
  const configured = setupTestApp({
    STRIPE_SECRET_KEY: 'sk_test_configured',
    STRIPE_WEBHOOK_SECRET: 'whsec_configured',
    STRIPE_PUBLISHABLE_KEY: 'pk_test_configured',
  });

  it('registers the webhook with the configured secret and reports Stripe to the console', async () => {
    expect(configured.app.routeTable).toContainEqual({ method: 'POST', url: '/webhooks/stripe' });
    const payload = JSON.stringify({
      id: 'evt_configured',
      object: 'event',
      type: 'customer.created',
      livemode: false,
      data: { object: { id: 'cus_1', object: 'customer' } },
    });
    const post = (secret: string) =>
      configured.app.inject({
        method: 'POST',
        url: '/webhooks/stripe',
        headers: { 'content-type': 'application/json', 'stripe-signature': fake.stripe.webhooks.generateTestHeaderString({ payload, secret }) },
        payload,
      });
    expect((await post(webhookSecret)).statusCode).toBe(400);
    expect((await post('whsec_configured')).statusCode).toBe(200);
    expect((await configured.app.inject({ method: 'GET', url: '/bff/config' })).json()).toEqual({
      paymentProvider: 'stripe',
      stripePublishableKey: 'pk_test_configured',
    });
    await expectLedgerConsistent(configured.testDb.db);
  });
});

import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { autoTopUpCharges, organizations } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { setupFakeStripe } from '../../testing/fake-stripe.js';
import type { TestPaymentMethod } from '../../testing/fake-stripe-intents.js';
import { stripeProvider } from './stripe-provider.js';

const testDb = setupTestDb({ schema, migrations });
const fake = setupFakeStripe();

const provider = () =>
  stripeProvider({ stripe: fake.stripe, db: testDb.db, publishableKey: 'pk_test_meterway', webhookSecret: 'whsec_test_saved_cards', automaticTax: true });

const returnUrl = 'https://console.example.com/auto-top-up/card?checkoutSessionId={CHECKOUT_SESSION_ID}';

async function newOrganization() {
  const organizationId = randomUUID();
  await testDb.db.insert(organizations).values({ id: organizationId, name: 'Grace Hopper’s organisation' });
  return { organizationId, organizationName: 'Grace Hopper’s organisation', email: `grace-${organizationId.slice(0, 8)}@example.com` };
}

/** An organisation with a card saved through a setup session, as the holder would save it. */
async function withSavedCard(card: TestPaymentMethod = 'pm_card_visa') {
  const organization = await newOrganization();
  const started = await provider().createSetup({ ...organization, returnUrl });
  const method = fake.completeSetup(started.checkoutSessionId, card);
  return { ...organization, customer: fake.session(started.checkoutSessionId).customer, paymentMethodId: method.id };
}

const twentyDollars = 20_000_000_000n;
const chargeOf = (saved: { organizationId: string; paymentMethodId: string }, chargeId = randomUUID()) => ({
  chargeId,
  organizationId: saved.organizationId,
  amountNanos: twentyDollars,
  paymentMethodId: saved.paymentMethodId,
});
const intentCreates = () => fake.requestsTo('POST', '/v1/payment_intents');

describe('stripe provider: setup sessions', () => {
  it('creates an elements-mode setup session in usd for the organisation’s customer, naming the organisation', async () => {
    const organization = await newOrganization();
    const started = await provider().createSetup({ ...organization, returnUrl });

    const session = fake.session(started.checkoutSessionId);
    const request = fake.requestsTo('POST', '/v1/checkout/sessions').at(-1);
    expect(request?.params).toEqual({
      ui_mode: 'elements',
      mode: 'setup',
      currency: 'usd',
      customer: session.customer,
      return_url: returnUrl,
      allowed_payment_method_types: ['card'],
      metadata: { organizationId: organization.organizationId },
      client_reference_id: organization.organizationId,
      setup_intent_data: { metadata: { organizationId: organization.organizationId } },
    });
    expect(request?.body).toContain('%7BCHECKOUT_SESSION_ID%7D');
    expect(request?.headers['idempotency-key']).toMatch(/^setup-session-[0-9a-f-]{36}$/);
    expect(started).toEqual({
      checkoutSessionId: session.id,
      clientSecret: session.client_secret,
      expiresAt: new Date(session.expires_at * 1000),
      taxNanos: 0n,
    });
    // Setup mode moves no money: no amounts, nothing to pay, and a SetupIntent made for off-session use.
    expect(session).toMatchObject({ mode: 'setup', status: 'open', payment_status: 'no_payment_required', amount_total: null, payment_intent: null });
    expect(fake.intents.setupIntents.get(session.setup_intent ?? '')).toMatchObject({
      customer: session.customer,
      status: 'requires_payment_method',
      usage: 'off_session',
      metadata: { organizationId: organization.organizationId },
    });
  });

  it('uses the customer the organisation’s top-ups already use', async () => {
    const organization = await newOrganization();
    const topUp = await provider().createCheckout({ ...organization, creditNanos: 10_000_000_000n, returnUrl });
    const setup = await provider().createSetup({ ...organization, returnUrl });
    expect(fake.session(setup.checkoutSessionId).customer).toBe(fake.session(topUp.checkoutSessionId).customer);
  });

  it('saves the confirmed card to the customer, readable from the SetupIntent with the card expanded', async () => {
    const saved = await withSavedCard('pm_card_mastercard');
    const session = [...fake.sessions.values()].find((candidate) => candidate.customer === saved.customer && candidate.mode === 'setup');
    const intent = await fake.stripe.setupIntents.retrieve(session?.setup_intent ?? '', { expand: ['payment_method'] });
    expect(intent.status).toBe('succeeded');
    expect(intent.payment_method).toMatchObject({ id: saved.paymentMethodId, customer: saved.customer, card: { brand: 'mastercard', last4: '4444' } });
  });
});

describe('stripe provider: off-session charges of the saved card', () => {
  it('creates and confirms an off-session PaymentIntent in cents, keyed by the charge, and waits for the webhook', async () => {
    const saved = await withSavedCard();
    const charge = chargeOf(saved);
    const outcome = await provider().chargeSavedCard(charge);

    const request = intentCreates().at(-1);
    expect(request?.params).toEqual({
      amount: '2000',
      currency: 'usd',
      customer: saved.customer,
      payment_method: saved.paymentMethodId,
      off_session: 'true',
      confirm: 'true',
      metadata: { auto_top_up_charge_id: charge.chargeId, organization_id: saved.organizationId },
    });
    expect(request?.headers['idempotency-key']).toBe(`auto-top-up-${charge.chargeId}`);
    const intent = fake.paymentIntentOf(charge.chargeId);
    // Stripe already says succeeded, but only the signed webhook credits.
    expect(outcome).toEqual({ outcome: 'processing', paymentIntentId: intent.id });
    expect(intent).toMatchObject({ status: 'succeeded', amount: 2000, amount_received: 2000 });
    expect(fake.charges.get(intent.latest_charge ?? '')).toMatchObject({ amount: 2000, payment_intent: intent.id });
  });

  it('charges once per charge id: a retry gets the same PaymentIntent back', async () => {
    const saved = await withSavedCard();
    const charge = chargeOf(saved);
    const before = fake.intents.paymentIntents.size;
    const outcomes = [await provider().chargeSavedCard(charge), await provider().chargeSavedCard(charge)];
    expect(outcomes[1]).toEqual(outcomes[0]);
    expect(fake.intents.paymentIntents.size - before).toBe(1);
    const other = await provider().chargeSavedCard(chargeOf(saved));
    expect(other.outcome === 'processing' && other.paymentIntentId).not.toBe(outcomes[0]?.outcome === 'processing' && outcomes[0].paymentIntentId);
  });

  it.each([
    ['pm_card_authenticationRequired', 'authentication_required', 'Your card was declined. This transaction requires authentication.'],
    ['pm_card_chargeCustomerFail', 'card_declined', 'Your card was declined.'],
  ] as const)('a card that cannot be charged (%s) is a failed outcome with Stripe’s code, message and PaymentIntent', async (card, code, message) => {
    const saved = await withSavedCard(card);
    const charge = chargeOf(saved);
    const outcome = await provider().chargeSavedCard(charge);
    const intent = fake.paymentIntentOf(charge.chargeId);
    expect(outcome).toEqual({ outcome: 'failed', paymentIntentId: intent.id, code, message });
    expect(intent).toMatchObject({ status: 'requires_payment_method', payment_method: null, last_payment_error: { code, message } });
    // The decline is saved under the key too: a retry of the same charge is the same decline, not a second attempt.
    expect(await provider().chargeSavedCard(charge)).toEqual(outcome);
    expect([...fake.intents.paymentIntents.values()].filter((candidate) => candidate.metadata.auto_top_up_charge_id === charge.chargeId)).toHaveLength(1);
  });

  it('reads back a charge already sent (its PaymentIntent known) instead of sending it again: Stripe’s state settles it', async () => {
    for (const [card, expected] of [
      ['pm_card_visa', { outcome: 'succeeded' }],
      ['pm_card_chargeCustomerFail', { outcome: 'failed', code: 'card_declined', message: 'Your card was declined.' }],
    ] as const) {
      const saved = await withSavedCard(card);
      const charge = chargeOf(saved);
      await testDb.db
        .insert(autoTopUpCharges)
        .values({ id: charge.chargeId, organizationId: saved.organizationId, provider: 'stripe', amountNanos: charge.amountNanos, status: 'processing' });
      const first = await provider().chargeSavedCard(charge);
      const paymentIntentId = fake.paymentIntentOf(charge.chargeId).id;
      expect(first).toMatchObject({ paymentIntentId });
      // The worker keeps the payment's id; a resend of the stuck charge reads it back.
      await testDb.db.update(autoTopUpCharges).set({ paymentIntentId }).where(eq(autoTopUpCharges.id, charge.chargeId));
      const creates = intentCreates().length;
      expect(await provider().chargeSavedCard(charge), card).toEqual({ ...expected, paymentIntentId });
      expect(intentCreates().length).toBe(creates);
      expect(fake.requestsTo('GET', `/v1/payment_intents/${paymentIntentId}`)).toHaveLength(1);
    }
  });

  it('turns Stripe being down into a 503 and a refused request into a plain error', async () => {
    const saved = await withSavedCard();
    fake.failNext(500, { type: 'api_error', message: 'An unknown error occurred' });
    await expect(provider().chargeSavedCard(chargeOf(saved))).rejects.toMatchObject({ code: 'ServiceUnavailable', status: 503 });

    const stranger = await withSavedCard();
    const refused = await provider()
      .chargeSavedCard({ ...chargeOf(saved), paymentMethodId: stranger.paymentMethodId })
      .catch((error: unknown) => error);
    expect(refused).not.toBeInstanceOf(AppError);
    expect((refused as Error).message).toMatch(/^Stripe could not charge the saved card: StripeInvalidRequestError \(resource_missing\)/);
  });

  it('refuses to charge an organisation without a Stripe customer, or an amount that is not whole cents', async () => {
    const organization = await newOrganization();
    await expect(provider().chargeSavedCard({ ...chargeOf({ ...organization, paymentMethodId: 'pm_x' }) })).rejects.toThrow(/no Stripe customer/);
    const saved = await withSavedCard();
    await expect(provider().chargeSavedCard({ ...chargeOf(saved), amountNanos: 1n })).rejects.toThrow(/whole cents/);
  });
});

describe('the fake Stripe refuses what Stripe refuses', () => {
  const refusal = (call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (error: unknown) => error as Stripe.errors.StripeError,
    );

  it('off_session without confirm, setup_future_usage off-session, a saved card without its customer or with another', async () => {
    const saved = await withSavedCard();
    const other = await withSavedCard();
    const base = { amount: 2000, currency: 'usd', customer: saved.customer ?? '', payment_method: saved.paymentMethodId };
    const noConfirm = await refusal(fake.stripe.paymentIntents.create({ ...base, off_session: true }));
    expect(noConfirm).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(noConfirm?.param).toBe('off_session');
    const futureUsage = await refusal(fake.stripe.paymentIntents.create({ ...base, off_session: true, confirm: true, setup_future_usage: 'off_session' }));
    expect(futureUsage?.param).toBe('setup_future_usage');
    const { customer: _, ...withoutCustomer } = base;
    expect((await refusal(fake.stripe.paymentIntents.create({ ...withoutCustomer, off_session: true, confirm: true })))?.param).toBe('customer');
    const wrongCustomer = await refusal(fake.stripe.paymentIntents.create({ ...base, customer: other.customer ?? '', off_session: true, confirm: true }));
    expect(wrongCustomer).toMatchObject({ code: 'resource_missing', param: 'payment_method' });
    expect((await refusal(fake.stripe.paymentIntents.create({ ...base, amount: 49, off_session: true, confirm: true })))?.code).toBe('amount_too_small');
  });

  it('accepts Stripe’s test payment methods by name, and answers a decline with a card error carrying the PaymentIntent', async () => {
    const paid = await fake.stripe.paymentIntents.create({ amount: 500, currency: 'usd', payment_method: 'pm_card_visa', confirm: true });
    expect(paid.status).toBe('succeeded');
    const onSession = await fake.stripe.paymentIntents.create({
      amount: 500,
      currency: 'usd',
      payment_method: 'pm_card_authenticationRequired',
      confirm: true,
    });
    expect(onSession).toMatchObject({ status: 'requires_action', next_action: { type: 'use_stripe_sdk' } });
    const declined = await refusal(
      fake.stripe.paymentIntents.create({ amount: 500, currency: 'usd', payment_method: 'pm_card_authenticationRequired', confirm: true, off_session: true }),
    );
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(declined).toMatchObject({ code: 'authentication_required', decline_code: 'authentication_required', statusCode: 402 });
    expect(declined?.payment_intent).toMatchObject({ status: 'requires_payment_method', last_payment_error: { code: 'authentication_required' } });
    expect(declined?.payment_method).toMatchObject({ card: { last4: '3184' } });
  });

  it('setup mode: a currency unless the payment method types are listed, and no line items', async () => {
    const base = { ui_mode: 'elements', mode: 'setup', return_url: returnUrl } as const;
    expect((await refusal(fake.stripe.checkout.sessions.create(base)))?.param).toBe('currency');
    const lineItems = [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 500, product_data: { name: 'Credit' } } }];
    expect((await refusal(fake.stripe.checkout.sessions.create({ ...base, currency: 'usd', line_items: lineItems })))?.param).toBe('line_items');
    expect((await fake.stripe.checkout.sessions.create({ ...base, allowed_payment_method_types: ['card'] })).currency).toBeNull();
  });
});

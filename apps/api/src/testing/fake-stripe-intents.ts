import { type FakeCharge, type FormParams, StripeFailure, field, invalid, list, missing, object, paidCharge, random, seconds } from './fake-stripe-wire.js';

/**
 * The fake Stripe's saved cards: SetupIntents (made by setup-mode Checkout Sessions), the
 * PaymentMethods they save, and PaymentIntents charging those off-session, in Stripe's documented
 * shapes. Which card was saved decides what a charge does, as with Stripe's test payment methods.
 */

type OffSessionOutcome = 'succeeds' | 'authentication_required' | 'card_declined';
type TestCard = { number: string; brand: string; offSession: OffSessionOutcome };

/** Stripe's test payment methods (docs.stripe.com/testing) for saving a card and charging it later. */
export const testCards = {
  pm_card_visa: { number: '4242424242424242', brand: 'visa', offSession: 'succeeds' },
  pm_card_mastercard: { number: '5555555555554444', brand: 'mastercard', offSession: 'succeeds' },
  // Asks for 3-D Secure when set up; once set up, off-session charges go through.
  pm_card_authenticationRequiredOnSetup: { number: '4000002500003155', brand: 'visa', offSession: 'succeeds' },
  // Asks for 3-D Secure on every payment: off-session, Stripe declines it with authentication_required.
  pm_card_authenticationRequired: { number: '4000002760003184', brand: 'visa', offSession: 'authentication_required' },
  // Attaches to a customer, then every charge is declined.
  pm_card_chargeCustomerFail: { number: '4000000000000341', brand: 'visa', offSession: 'card_declined' },
} satisfies Record<string, TestCard>;
export type TestPaymentMethod = keyof typeof testCards;

const cardOf = (card: string): TestCard | undefined =>
  (testCards as Record<string, TestCard>)[card] ?? Object.values(testCards).find((test) => test.number === card.replace(/\s/g, ''));

export type FakePaymentMethod = {
  id: string;
  object: 'payment_method';
  type: 'card';
  card: {
    brand: string;
    display_brand: string;
    last4: string;
    exp_month: number;
    exp_year: number;
    funding: 'credit';
    country: 'US';
    fingerprint: string;
    networks: { available: string[]; preferred: null };
    three_d_secure_usage: { supported: true };
    wallet: null;
  };
  billing_details: { address: null; email: null; name: null; phone: null };
  allow_redisplay: 'unspecified';
  customer: string | null;
  metadata: Record<string, string>;
  created: number;
  livemode: false;
};

export type FakeSetupIntent = {
  id: string;
  object: 'setup_intent';
  client_secret: string;
  customer: string | null;
  payment_method: string | null;
  payment_method_types: string[];
  status: 'requires_payment_method' | 'succeeded';
  usage: 'off_session';
  metadata: Record<string, string>;
  last_setup_error: null;
  next_action: null;
  created: number;
  livemode: false;
};

type PaymentError = { type: 'card_error'; code: string; decline_code: string; message: string; doc_url: string; payment_method: FakePaymentMethod };

export type FakePaymentIntent = {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  customer: string | null;
  payment_method: string | null;
  payment_method_types: string[];
  capture_method: 'automatic';
  confirmation_method: 'automatic';
  setup_future_usage: string | null;
  status: 'requires_payment_method' | 'requires_confirmation' | 'requires_action' | 'processing' | 'succeeded';
  last_payment_error: PaymentError | null;
  next_action: { type: 'use_stripe_sdk'; use_stripe_sdk: Record<string, string> } | null;
  latest_charge: string | null;
  metadata: Record<string, string>;
  client_secret: string;
  description: string | null;
  created: number;
  livemode: false;
};

const declines: Record<Exclude<OffSessionOutcome, 'succeeds'>, { decline_code: string; message: string }> = {
  authentication_required: { decline_code: 'authentication_required', message: 'Your card was declined. This transaction requires authentication.' },
  card_declined: { decline_code: 'generic_decline', message: 'Your card was declined.' },
};

export class FakeIntents {
  readonly paymentMethods = new Map<string, FakePaymentMethod>();
  readonly setupIntents = new Map<string, FakeSetupIntent>();
  readonly paymentIntents = new Map<string, FakePaymentIntent>();
  /** The test card behind each PaymentMethod (not part of Stripe's object). */
  private readonly cards = new Map<string, TestCard>();

  constructor(private readonly account: { customers: Map<string, unknown>; charges: Map<string, FakeCharge> }) {}

  /** The SetupIntent a setup-mode Checkout Session makes when it is created. */
  createForSession(customer: string | null, metadata: Record<string, string>): FakeSetupIntent {
    const id = `seti_${random(24)}`;
    const intent: FakeSetupIntent = {
      id,
      object: 'setup_intent',
      client_secret: `${id}_secret_${random(24)}`,
      customer,
      payment_method: null,
      payment_method_types: ['card'],
      status: 'requires_payment_method',
      usage: 'off_session',
      metadata,
      last_setup_error: null,
      next_action: null,
      created: seconds(),
      livemode: false,
    };
    this.setupIntents.set(id, intent);
    return intent;
  }

  /** The holder confirms a SetupIntent with a test card (authenticating where it asks): it is saved to the intent's customer. */
  confirmSetup(setupIntentId: string, card: string): FakePaymentMethod {
    const intent = this.setupIntents.get(setupIntentId);
    if (!intent || intent.status !== 'requires_payment_method') throw new Error(`the fake Stripe has no open setup intent ${setupIntentId}`);
    const method = this.newPaymentMethod(card, intent.customer);
    Object.assign(intent, { status: 'succeeded', payment_method: method.id });
    return method;
  }

  /** The holder comes back and authenticates a payment that needed it: it succeeds (and is charged). */
  authenticate(paymentIntentId: string): FakePaymentIntent {
    const intent = this.paymentIntents.get(paymentIntentId);
    if (!intent || intent.status === 'succeeded') throw new Error(`the fake Stripe has no unpaid payment intent ${paymentIntentId}`);
    const method = intent.payment_method ?? intent.last_payment_error?.payment_method.id ?? null;
    return this.succeed(Object.assign(intent, { payment_method: method }));
  }

  /**
   * The PaymentIntent a payment-mode Checkout Session makes when the buyer confirms: processing
   * while a delayed payment method settles, then succeeded (charged) by `settle`.
   */
  createForCheckout(amount: number, currency: string, customer: string | null): FakePaymentIntent {
    const intent = this.newPaymentIntent({ amount, currency, customer, payment_method: null, status: 'processing', metadata: {}, description: null });
    this.paymentIntents.set(intent.id, intent);
    return intent;
  }

  /** A checkout's payment settles: the PaymentIntent succeeds and its charge is made. */
  settle(paymentIntentId: string): FakePaymentIntent {
    const intent = this.paymentIntents.get(paymentIntentId);
    if (!intent) throw new Error(`the fake Stripe has no payment intent ${paymentIntentId}`);
    return intent.status === 'succeeded' ? intent : this.succeed(intent);
  }

  /** Any object of this family by id, for events. */
  find(id: string): FakePaymentIntent | FakeSetupIntent | FakePaymentMethod | undefined {
    return this.paymentIntents.get(id) ?? this.setupIntents.get(id) ?? this.paymentMethods.get(id);
  }

  /** Answers the request if it is one of these endpoints. */
  route(method: string, path: string, params: FormParams): unknown {
    if (method === 'POST' && path === '/v1/payment_intents') return this.createPaymentIntent(params);
    const [, resource, id] = /^\/v1\/(payment_intents|setup_intents|payment_methods)\/([^/]+)$/.exec(path) ?? [];
    if (method !== 'GET' || !resource || !id) return undefined;
    const [found, name] =
      resource === 'payment_intents'
        ? [this.paymentIntents.get(id), 'payment_intent']
        : resource === 'setup_intents'
          ? [this.setupIntents.get(id), 'setup_intent']
          : [this.paymentMethods.get(id), 'PaymentMethod'];
    if (!found) throw missing(name, id);
    return this.expand(found, list(params.expand).map(String));
  }

  /** A PaymentIntent as a session with `payment_intent` (or `payment_intent.<path>`) expanded shows it. */
  expandedPaymentIntent(id: string, expand: string[]) {
    const intent = this.paymentIntents.get(id);
    return intent && this.expand(intent, expand);
  }

  /** Stripe's expandable fields of these objects: the PaymentMethod, and a PaymentIntent's latest Charge. */
  private expand(found: object, expand: string[]) {
    const expanded: Record<string, unknown> = { ...found };
    for (const path of expand) {
      const id = expanded[path];
      if (path === 'payment_method' && typeof id === 'string') expanded.payment_method = this.paymentMethods.get(id);
      else if (path === 'latest_charge' && 'latest_charge' in found) expanded.latest_charge = typeof id === 'string' ? this.account.charges.get(id) : id;
      else if (path !== 'payment_method') throw invalid(`This property cannot be expanded (${path}).`, { param: 'expand' });
    }
    return expanded;
  }

  private newPaymentMethod(card: string, customer: string | null): FakePaymentMethod {
    const test = cardOf(card);
    if (!test) throw new Error(`${card} is not one of the fake Stripe's test cards: ${Object.keys(testCards).join(', ')}`);
    const method: FakePaymentMethod = {
      id: `pm_${random(24)}`,
      object: 'payment_method',
      type: 'card',
      card: {
        brand: test.brand,
        display_brand: test.brand,
        last4: test.number.slice(-4),
        exp_month: 12,
        exp_year: new Date().getUTCFullYear() + 3,
        funding: 'credit',
        country: 'US',
        fingerprint: test.number.slice(-16, -4),
        networks: { available: [test.brand], preferred: null },
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      billing_details: { address: null, email: null, name: null, phone: null },
      allow_redisplay: 'unspecified',
      customer,
      metadata: {},
      created: seconds(),
      livemode: false,
    };
    this.paymentMethods.set(method.id, method);
    this.cards.set(method.id, test);
    return method;
  }

  private createPaymentIntent(params: FormParams): FakePaymentIntent {
    const amount = Number(field(params.amount));
    if (!field(params.amount)) throw invalid('Missing required param: amount.', { param: 'amount' });
    if (!Number.isInteger(amount)) throw invalid('Invalid integer', { param: 'amount' });
    const currency = field(params.currency);
    if (!currency) throw invalid('Missing required param: currency.', { param: 'currency' });
    if (amount < 50) throw invalid('Amount must be at least $0.50 usd', { code: 'amount_too_small', param: 'amount' });
    const confirm = field(params.confirm) === 'true';
    const offSession = field(params.off_session) !== undefined && field(params.off_session) !== 'false';
    if (offSession && !confirm) throw invalid('The `off_session` parameter can only be used when `confirm` is true.', { param: 'off_session' });
    const setupFutureUsage = field(params.setup_future_usage) ?? null;
    if (offSession && setupFutureUsage) {
      throw invalid(
        'You cannot confirm with the `off_session` parameter when `setup_future_usage` is also set on the PaymentIntent because you cannot set up future usages when processing payments off-session.',
        { param: 'setup_future_usage' },
      );
    }
    const customer = field(params.customer) ?? null;
    if (customer && !this.account.customers.has(customer)) throw missing('customer', customer, 'customer');
    const method = this.paymentMethodFor(field(params.payment_method), customer);
    if (confirm && !method) {
      throw invalid("You cannot confirm this PaymentIntent because it's missing a payment method.", {
        code: 'payment_intent_unexpected_state',
        param: 'payment_method',
      });
    }
    const intent = this.newPaymentIntent({
      amount,
      currency,
      customer,
      payment_method: method?.id ?? null,
      setup_future_usage: setupFutureUsage,
      status: method ? 'requires_confirmation' : 'requires_payment_method',
      metadata: object(params.metadata) as Record<string, string>,
      description: field(params.description) ?? null,
    });
    this.paymentIntents.set(intent.id, intent);
    return confirm && method ? this.confirm(intent, method, offSession) : intent;
  }

  private newPaymentIntent(
    fields: Pick<FakePaymentIntent, 'amount' | 'currency' | 'customer' | 'payment_method' | 'status' | 'metadata' | 'description'> &
      Partial<Pick<FakePaymentIntent, 'setup_future_usage'>>,
  ): FakePaymentIntent {
    const id = `pi_${random(24)}`;
    return {
      id,
      object: 'payment_intent',
      amount_received: 0,
      payment_method_types: ['card'],
      capture_method: 'automatic',
      confirmation_method: 'automatic',
      setup_future_usage: null,
      last_payment_error: null,
      next_action: null,
      latest_charge: null,
      client_secret: `${id}_secret_${random(24)}`,
      created: seconds(),
      livemode: false,
      ...fields,
    };
  }

  /**
   * A test card by its documented name (pm_card_visa: a new PaymentMethod each time, as in test
   * mode), or a saved one, which is used only with the customer it is attached to.
   */
  private paymentMethodFor(id: string | undefined, customer: string | null): FakePaymentMethod | undefined {
    if (!id) return undefined;
    if (id in testCards) return this.newPaymentMethod(id, null);
    const method = this.paymentMethods.get(id);
    if (!method) throw missing('PaymentMethod', id, 'payment_method');
    if (method.customer && !customer) {
      throw invalid(`The PaymentMethod ${id} is attached to a Customer; pass that Customer as \`customer\` to use it.`, { param: 'customer' });
    }
    if (method.customer && method.customer !== customer) {
      throw invalid(`The customer does not have a payment method with the ID ${id}. The payment method must be attached to the customer.`, {
        code: 'resource_missing',
        param: 'payment_method',
      });
    }
    return method;
  }

  private confirm(intent: FakePaymentIntent, method: FakePaymentMethod, offSession: boolean): FakePaymentIntent {
    const outcome = this.cards.get(method.id)?.offSession ?? 'succeeds';
    if (outcome === 'succeeds') return this.succeed(intent);
    if (outcome === 'authentication_required' && !offSession) {
      // On-session, the browser runs the challenge (Stripe.js handleNextAction).
      return Object.assign(intent, { status: 'requires_action', next_action: { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect' } } });
    }
    const error: PaymentError = {
      type: 'card_error',
      code: outcome,
      ...declines[outcome],
      doc_url: `https://docs.stripe.com/error-codes/${outcome.replace(/_/g, '-')}`,
      payment_method: method,
    };
    // A failed attempt leaves the intent waiting for another payment method, with the error on it; the 402 carries both.
    Object.assign(intent, { status: 'requires_payment_method', payment_method: null, last_payment_error: error });
    const { payment_method: _, ...body } = error;
    throw new StripeFailure(402, { ...body, payment_intent: structuredClone(intent), payment_method: method });
  }

  private succeed(intent: FakePaymentIntent): FakePaymentIntent {
    const charge = paidCharge(intent.id, intent.amount, intent.currency);
    this.account.charges.set(charge.id, charge);
    return Object.assign(intent, {
      status: 'succeeded',
      amount_received: intent.amount,
      latest_charge: charge.id,
      last_payment_error: null,
      next_action: null,
    });
  }
}

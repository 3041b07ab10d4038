import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll } from 'vitest';
import { FakeIntents, type FakePaymentMethod, type TestPaymentMethod } from './fake-stripe-intents.js';
import {
  type FakeCharge,
  type FormParams,
  StripeFailure,
  type StripeErrorBody,
  field,
  invalid,
  list,
  object,
  parseForm,
  random,
  seconds,
} from './fake-stripe-wire.js';

/**
 * A small stateful Stripe for offline tests (payments-protocol.md §5): a `node:http` server that
 * speaks Stripe's wire format (form-encoded bracket bodies in, JSON out, §5.2 error bodies) for the
 * calls Meterway makes, validates the parameters real Stripe would refuse, and records every
 * request. Test controls play the buyer's side: pay, settle a delayed payment, let a session expire,
 * save a test card in a setup-mode session, authenticate a payment that needed it.
 */

export type RecordedRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: string; params: FormParams };

export type FakeCheckoutSession = {
  id: string;
  object: 'checkout.session';
  client_secret: string;
  ui_mode: string;
  mode: 'payment' | 'setup';
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  /** Null in setup mode without a currency; amounts are null in setup mode. */
  currency: string | null;
  amount_subtotal: number | null;
  amount_total: number | null;
  total_details: { amount_discount: number; amount_shipping: number; amount_tax: number } | null;
  automatic_tax: { enabled: boolean; liability: null; provider: null; status: 'requires_location_inputs' | null };
  customer: string | null;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  return_url: string | null;
  allowed_payment_method_types: string[];
  payment_intent: string | null;
  /** The SetupIntent of a setup-mode session, made with it. */
  setup_intent: string | null;
  url: null;
  created: number;
  expires_at: number;
  livemode: false;
};

export type { FakeCharge } from './fake-stripe-wire.js';

export type FakeDispute = {
  id: string;
  object: 'dispute';
  amount: number;
  charge: string;
  currency: string;
  payment_intent: string;
  reason: string;
  status: string;
  created: number;
  livemode: false;
};

const uiModes = ['hosted_page', 'embedded_page', 'elements', 'form'];

export class FakeStripe {
  readonly requests: RecordedRequest[] = [];
  readonly customers = new Map<
    string,
    { id: string; object: 'customer'; name: string | null; email: string | null; metadata: Record<string, string>; address: null }
  >();
  readonly sessions = new Map<string, FakeCheckoutSession>();
  readonly charges = new Map<string, FakeCharge>();
  readonly disputes = new Map<string, FakeDispute>();
  /** SetupIntents, PaymentMethods and PaymentIntents (fake-stripe-intents.ts). */
  readonly intents = new FakeIntents({ customers: this.customers, charges: this.charges });
  private readonly idempotent = new Map<string, { fingerprint: string; response?: unknown; failure?: StripeFailure }>();
  private readonly failures: StripeFailure[] = [];
  private server: Server | undefined;
  private client: Stripe | undefined;

  async start() {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.client = new Stripe('sk_test_fake', { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0, telemetry: false });
  }

  async close() {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The real SDK, pointed at this server. */
  get stripe(): Stripe {
    if (!this.client) throw new Error('The fake Stripe is started in beforeAll.');
    return this.client;
  }

  /** Requests to one endpoint, e.g. `requestsTo('POST', '/v1/checkout/sessions')`. */
  requestsTo(method: string, path: string) {
    return this.requests.filter((request) => request.method === method && request.path === path);
  }

  session(id: string): FakeCheckoutSession {
    const session = this.sessions.get(id);
    if (!session) throw new Error(`the fake Stripe has no checkout session ${id}`);
    return session;
  }

  /** The buyer confirmed: the session completes; a delayed payment method leaves it unpaid for now. */
  complete(id: string, paymentStatus: FakeCheckoutSession['payment_status'] = 'paid') {
    if (this.session(id).mode === 'setup') throw new Error(`checkout session ${id} is in setup mode: completeSetup saves a card`);
    const session = this.session(id);
    const intent = this.intents.createForCheckout(session.amount_total ?? 0, session.currency ?? 'usd', session.customer);
    Object.assign(session, { status: 'complete', payment_status: paymentStatus, payment_intent: intent.id });
    if (paymentStatus === 'paid') this.charge(id);
  }

  /**
   * The holder confirms a setup-mode session with a test card, by its documented name
   * (pm_card_visa) or number: its SetupIntent succeeds, saving a new PaymentMethod to the session's
   * customer, and the session completes. Returns the saved PaymentMethod.
   */
  completeSetup(id: string, card: TestPaymentMethod | string = 'pm_card_visa'): FakePaymentMethod {
    const session = this.session(id);
    if (session.mode !== 'setup' || session.status !== 'open' || !session.setup_intent) throw new Error(`checkout session ${id} is not an open setup session`);
    const method = this.intents.confirmSetup(session.setup_intent, card);
    session.status = 'complete';
    return method;
  }

  /** The PaymentIntent whose metadata names this auto top-up charge. */
  paymentIntentOf(autoTopUpChargeId: string) {
    const intent = [...this.intents.paymentIntents.values()].find((candidate) => candidate.metadata.auto_top_up_charge_id === autoTopUpChargeId);
    if (!intent) throw new Error(`the fake Stripe has no payment intent for auto top-up charge ${autoTopUpChargeId}`);
    return intent;
  }

  /** A delayed payment settles: paid, or (failed) the session stays complete and unpaid. */
  settleAsync(id: string, outcome: 'succeeded' | 'failed') {
    if (outcome === 'succeeded') {
      this.session(id).payment_status = 'paid';
      this.charge(id);
    }
  }

  /** The charge that paid a session (made when it was paid). */
  chargeOf(sessionId: string): FakeCharge {
    const paymentIntent = this.session(sessionId).payment_intent;
    const charge = [...this.charges.values()].find((candidate) => candidate.payment_intent === paymentIntent);
    if (!charge) throw new Error(`the fake Stripe has no charge for checkout session ${sessionId}`);
    return charge;
  }

  /** The charge of an auto top-up charge's PaymentIntent (made when it succeeded). */
  chargeOfAutoTopUp(autoTopUpChargeId: string): FakeCharge {
    const charge = this.charges.get(this.paymentIntentOf(autoTopUpChargeId).latest_charge ?? '');
    if (!charge) throw new Error(`the fake Stripe has no charge for auto top-up charge ${autoTopUpChargeId}`);
    return charge;
  }

  /** A paid session's charge (by the session's id), or the charge itself. */
  private chargeFor(paid: string | FakeCharge): FakeCharge {
    return typeof paid === 'string' ? this.chargeOf(paid) : paid;
  }

  /** Refunds `amount` cents of a charge, or of a paid session's (all that is left by default); returns the charge. */
  refund(paid: string | FakeCharge, amount?: number): FakeCharge {
    const charge = this.chargeFor(paid);
    charge.amount_refunded += amount ?? charge.amount - charge.amount_refunded;
    if (charge.amount_refunded > charge.amount) throw new Error('refunded more than the charge');
    charge.refunded = charge.amount_refunded === charge.amount;
    return charge;
  }

  /** The cardholder disputes a charge, or a paid session's (its whole amount by default); returns the dispute. */
  dispute(paid: string | FakeCharge, amount?: number): FakeDispute {
    const charge = this.chargeFor(paid);
    const dispute: FakeDispute = {
      id: `dp_${random(24)}`,
      object: 'dispute',
      amount: amount ?? charge.amount,
      charge: charge.id,
      currency: charge.currency,
      payment_intent: charge.payment_intent,
      reason: 'fraudulent',
      status: 'needs_response',
      created: seconds(),
      livemode: false,
    };
    this.disputes.set(dispute.id, dispute);
    charge.disputed = true;
    return dispute;
  }

  /** The card network decides a dispute. */
  closeDispute(id: string, status: 'won' | 'lost') {
    const dispute = this.disputes.get(id);
    if (!dispute) throw new Error(`the fake Stripe has no dispute ${id}`);
    dispute.status = status;
  }

  private charge(sessionId: string) {
    const paymentIntent = this.session(sessionId).payment_intent;
    if (paymentIntent) this.intents.settle(paymentIntent);
  }

  expire(id: string) {
    this.session(id).status = 'expired';
  }

  /** The next request (whatever it is) fails with this status and Stripe error body. */
  failNext(status: number, error: StripeErrorBody) {
    this.failures.push(new StripeFailure(status, error));
  }

  /**
   * A snapshot event as Stripe would deliver it now, of the checkout session, charge, dispute,
   * payment intent or setup intent with this id; `object` overrides fields of the snapshot.
   */
  event(type: string, id: string, object: Record<string, unknown> = {}) {
    return {
      id: `evt_${random(24)}`,
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: seconds(),
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: {
        object: {
          ...structuredClone(
            this.sessions.get(id) ?? this.charges.get(id) ?? this.disputes.get(id) ?? this.intents.find(id) ?? { id, object: 'checkout.session' },
          ),
          ...object,
        },
      },
    };
  }

  private async handle(request: IncomingMessage, response: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const url = new URL(request.url ?? '/', 'http://stripe.fake');
    const method = request.method ?? 'GET';
    const params = parseForm(method === 'GET' ? url.search.slice(1) : body);
    this.requests.push({ method, path: url.pathname, headers: request.headers, body, params });
    const reply = (status: number, payload: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${random(14)}` }).end(JSON.stringify(payload));
    try {
      if (!/^Bearer sk_(test|live)_\w+$/.test(request.headers.authorization ?? ''))
        throw new StripeFailure(401, { type: 'invalid_request_error', message: 'Invalid API Key provided.' });
      const failure = this.failures.shift();
      if (failure) throw failure;
      const key = method === 'POST' ? request.headers['idempotency-key'] : undefined;
      const fingerprint = `${method} ${url.pathname} ${body}`;
      const earlier = typeof key === 'string' ? this.idempotent.get(key) : undefined;
      if (earlier && earlier.fingerprint !== fingerprint) {
        throw new StripeFailure(400, {
          type: 'idempotency_error',
          message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
        });
      }
      if (earlier?.failure) throw earlier.failure;
      const result = earlier ? earlier.response : this.routeSaving(typeof key === 'string' ? key : undefined, fingerprint, method, url.pathname, params);
      if (earlier) response.setHeader('idempotent-replayed', 'true');
      reply(200, result);
    } catch (error) {
      if (error instanceof StripeFailure) reply(error.status, { error: error.error });
      else reply(500, { error: { type: 'api_error', message: `fake Stripe failed: ${String(error)}` } });
    }
  }

  /**
   * Stripe saves the result under the idempotency key once the request has run, a card's decline
   * included (the same key answers the same 402 and PaymentIntent); a request refused before it
   * ran (bad parameters) saves nothing, so it may be retried with the same key once fixed.
   */
  private routeSaving(key: string | undefined, fingerprint: string, method: string, path: string, params: FormParams): unknown {
    try {
      const response = this.route(method, path, params);
      if (key) this.idempotent.set(key, { fingerprint, response });
      return response;
    } catch (error) {
      if (key && error instanceof StripeFailure && error.status === 402) this.idempotent.set(key, { fingerprint, failure: error });
      throw error;
    }
  }

  private route(method: string, path: string, params: FormParams): unknown {
    const intents = this.intents.route(method, path, params);
    if (intents !== undefined) return intents;
    if (method === 'POST' && path === '/v1/customers') return this.createCustomer(params);
    if (method === 'POST' && path === '/v1/checkout/sessions') return this.createSession(params);
    if (method === 'POST' && path === '/v1/billing_portal/sessions') return this.createPortalSession(params);
    if (method === 'GET' && path === '/v1/checkout/sessions') {
      const paymentIntent = field(params.payment_intent);
      const data = [...this.sessions.values()]
        .filter((session) => !paymentIntent || session.payment_intent === paymentIntent)
        .slice(0, Number(field(params.limit) ?? 10));
      return { object: 'list', data, has_more: false, url: '/v1/checkout/sessions' };
    }
    const [, resource, objectId] = /^\/v1\/(charges|disputes)\/([^/]+)$/.exec(path) ?? [];
    if (method === 'GET' && resource && objectId) {
      const found = resource === 'charges' ? this.charges.get(objectId) : this.disputes.get(objectId);
      if (!found) throw invalid(`No such ${resource.slice(0, -1)}: '${objectId}'`, { code: 'resource_missing', param: 'id' });
      return found;
    }
    const [, id, action] = /^\/v1\/checkout\/sessions\/([^/]+)(\/expire)?$/.exec(path) ?? [];
    if (id) {
      const session = this.sessions.get(id);
      if (!session) throw invalid(`No such checkout.session: '${id}'`, { code: 'resource_missing', param: 'id' });
      if (method === 'GET' && !action) return this.expandSession(session, list(params.expand).map(String));
      if (method === 'POST' && action) {
        if (session.status !== 'open') throw invalid('Only Checkout Sessions with a status in ["open"] can be expired.');
        session.status = 'expired';
        return session;
      }
    }
    throw new StripeFailure(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  /** Expands the session's PaymentIntent, and within it what `payment_intent.<field>` names (latest_charge). */
  private expandSession(session: FakeCheckoutSession, expand: string[]) {
    const expanded: Record<string, unknown> = { ...session };
    for (const path of expand) {
      const [head, ...rest] = path.split('.');
      if (head !== 'payment_intent') throw invalid(`This property cannot be expanded (${path}).`, { param: 'expand' });
      const nested = rest.length ? [rest.join('.')] : [];
      if (session.payment_intent) expanded.payment_intent = this.intents.expandedPaymentIntent(session.payment_intent, nested) ?? session.payment_intent;
    }
    return expanded;
  }

  private createCustomer(params: FormParams) {
    const customer = {
      id: `cus_${random(14)}`,
      object: 'customer' as const,
      name: field(params.name) ?? null,
      email: field(params.email) ?? null,
      metadata: object(params.metadata) as Record<string, string>,
      address: null,
    };
    this.customers.set(customer.id, customer);
    return customer;
  }

  private existingCustomer(params: FormParams) {
    const id = field(params.customer);
    if (id && !this.customers.has(id)) throw invalid(`No such customer: '${id}'`, { code: 'resource_missing', param: 'customer' });
    return id;
  }

  private createSession(params: FormParams): FakeCheckoutSession {
    if ('payment_method_types' in params) throw invalid('Received unknown parameter: payment_method_types', { param: 'payment_method_types' });
    const uiMode = field(params.ui_mode) ?? 'hosted_page';
    if (!uiModes.includes(uiMode)) throw invalid(`Invalid ui_mode: must be one of ${uiModes.join(', ')}`, { param: 'ui_mode' });
    const returnUrl = field(params.return_url);
    if (uiMode === 'elements' || uiMode === 'embedded_page') {
      for (const param of ['success_url', 'cancel_url'])
        if (param in params) throw invalid(`The \`${param}\` parameter is not supported with ui_mode \`${uiMode}\`.`, { param });
      if (!returnUrl) throw invalid('Missing required param: return_url.', { param: 'return_url' });
    }
    const mode = field(params.mode);
    if (mode !== 'payment' && mode !== 'setup') throw invalid('This fake supports mode=payment and mode=setup.', { param: 'mode' });
    const terms = mode === 'payment' ? this.paymentTerms(params) : this.setupTerms(params);
    const customer = this.existingCustomer(params);
    const automaticTax = field(object(params.automatic_tax).enabled) === 'true';
    if (automaticTax && customer && field(object(params.customer_update).address) !== 'auto') {
      throw invalid(
        'Automatic tax calculation in Checkout requires a valid address on the Customer. Add a valid address to the Customer or set `customer_update[address]` to `auto`.',
        {
          code: 'customer_tax_location_invalid',
        },
      );
    }
    const id = `cs_test_${random(56)}`;
    const setupIntent =
      mode === 'setup' ? this.intents.createForSession(customer ?? null, object(object(params.setup_intent_data).metadata) as Record<string, string>) : null;
    const session: FakeCheckoutSession = {
      id,
      object: 'checkout.session',
      client_secret: `${id}_secret_${random(24)}`,
      ui_mode: uiMode,
      mode,
      status: 'open',
      ...terms,
      automatic_tax: { enabled: automaticTax, liability: null, provider: null, status: automaticTax ? 'requires_location_inputs' : null },
      customer: customer ?? null,
      client_reference_id: field(params.client_reference_id) ?? null,
      metadata: object(params.metadata) as Record<string, string>,
      return_url: returnUrl ?? null,
      allowed_payment_method_types: list(params.allowed_payment_method_types).map(String),
      payment_intent: null,
      setup_intent: setupIntent?.id ?? null,
      url: null,
      created: seconds(),
      expires_at: Number(field(params.expires_at) ?? seconds() + 24 * 60 * 60),
      livemode: false,
    };
    this.sessions.set(id, session);
    return session;
  }

  private paymentTerms(params: FormParams) {
    const items = list(params.line_items).map((item) => object(item));
    if (items.length === 0) throw invalid('Missing required param: line_items.', { param: 'line_items' });
    const amounts = items.map((item, index) => {
      const unitAmount = Number(field(object(item.price_data).unit_amount));
      if (!Number.isInteger(unitAmount)) throw invalid('Invalid integer', { param: `line_items[${index}][price_data][unit_amount]` });
      if (unitAmount < 50) throw invalid("The Checkout Session's total amount due must add up to at least $0.50 usd", { code: 'amount_too_small' });
      return unitAmount * Number(field(item.quantity) ?? '1');
    });
    const subtotal = amounts.reduce((sum, amount) => sum + amount, 0);
    return {
      payment_status: 'unpaid' as const,
      currency: field(object(object(items[0]).price_data).currency) ?? 'usd',
      amount_subtotal: subtotal,
      amount_total: subtotal,
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    };
  }

  /** Setup mode charges nothing: no line items, no tax, and a currency unless the payment method types are listed. */
  private setupTerms(params: FormParams) {
    if ('line_items' in params) throw invalid('You cannot pass `line_items` in `setup` mode.', { param: 'line_items' });
    if (field(object(params.automatic_tax).enabled) === 'true') throw invalid('Automatic tax is not supported in `setup` mode.', { param: 'automatic_tax' });
    const currency = field(params.currency);
    if (!currency && !('allowed_payment_method_types' in params)) {
      throw invalid('`currency` is required in `setup` mode when `allowed_payment_method_types` is not set.', { param: 'currency' });
    }
    return { payment_status: 'no_payment_required' as const, currency: currency ?? null, amount_subtotal: null, amount_total: null, total_details: null };
  }

  private createPortalSession(params: FormParams) {
    const customer = this.existingCustomer(params);
    if (!customer) throw invalid('Missing required param: customer.', { param: 'customer' });
    return {
      id: `bps_${random(24)}`,
      object: 'billing_portal.session',
      url: `https://billing.stripe.com/p/session/test_${random(32)}`,
      return_url: field(params.return_url) ?? null,
      customer,
      configuration: 'bpc_fake_default',
      created: seconds(),
      livemode: false,
      locale: null,
      flow: null,
      on_behalf_of: null,
    };
  }
}

/** A fake Stripe for the calling test file, started before its tests and closed after. */
export function setupFakeStripe(): FakeStripe {
  const fake = new FakeStripe();
  beforeAll(() => fake.start());
  afterAll(() => fake.close());
  return fake;
}

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll } from 'vitest';

/**
 * A small stateful Stripe for offline tests (payments-protocol.md §5): a `node:http` server that
 * speaks Stripe's wire format (form-encoded bracket bodies in, JSON out, §5.2 error bodies) for the
 * calls Meterway makes, validates the parameters real Stripe would refuse, and records every
 * request. Test controls play the buyer's side: pay, settle a delayed payment, let a session expire.
 */

/** A decoded form body: `a[b][0]=x` → `{ a: { b: ['x'] } }`; leaves stay strings, as on the wire. */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormParams = { [key: string]: FormValue };

export type RecordedRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: string; params: FormParams };

export type FakeCheckoutSession = {
  id: string;
  object: 'checkout.session';
  client_secret: string;
  ui_mode: string;
  mode: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  currency: string;
  amount_subtotal: number;
  amount_total: number;
  total_details: { amount_discount: number; amount_shipping: number; amount_tax: number };
  automatic_tax: { enabled: boolean; liability: null; provider: null; status: 'requires_location_inputs' | null };
  customer: string | null;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  return_url: string | null;
  allowed_payment_method_types: string[];
  payment_intent: string | null;
  url: null;
  created: number;
  expires_at: number;
  livemode: false;
};

export type FakeCharge = {
  id: string;
  object: 'charge';
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  currency: string;
  payment_intent: string;
  paid: true;
  refunded: boolean;
  disputed: boolean;
  status: 'succeeded';
  created: number;
  livemode: false;
};

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

type StripeErrorBody = { type: 'invalid_request_error' | 'api_error' | 'idempotency_error' | 'card_error'; message: string; code?: string; param?: string };

class StripeFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: StripeErrorBody,
  ) {
    super(error.message);
  }
}

const uiModes = ['hosted_page', 'embedded_page', 'elements', 'form'];
const random = (length: number) => randomBytes(length).toString('base64url').replace(/[-_]/g, 'x').slice(0, length);
const seconds = () => Math.floor(Date.now() / 1000);
const invalid = (message: string, extra: Omit<StripeErrorBody, 'type' | 'message'> = {}) =>
  new StripeFailure(400, { type: 'invalid_request_error', message, ...extra });

export function parseForm(body: string): FormParams {
  const root: FormParams = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: Record<string, FormValue> = root;
    path.forEach((part, index) => {
      const next = path[index + 1];
      if (next === undefined) node[part] = value;
      else node = (node[part] ??= /^\d+$/.test(next) ? [] : {}) as Record<string, FormValue>;
    });
  }
  return root;
}

const field = (value: FormValue | undefined): string | undefined => (typeof value === 'string' ? value : undefined);
const object = (value: FormValue | undefined): Record<string, FormValue> => (value && typeof value === 'object' && !Array.isArray(value) ? value : {});
const list = (value: FormValue | undefined): FormValue[] => (Array.isArray(value) ? value : []);

export class FakeStripe {
  readonly requests: RecordedRequest[] = [];
  readonly customers = new Map<
    string,
    { id: string; object: 'customer'; name: string | null; email: string | null; metadata: Record<string, string>; address: null }
  >();
  readonly sessions = new Map<string, FakeCheckoutSession>();
  readonly charges = new Map<string, FakeCharge>();
  readonly disputes = new Map<string, FakeDispute>();
  private readonly idempotent = new Map<string, { fingerprint: string; response: unknown }>();
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
    Object.assign(this.session(id), { status: 'complete', payment_status: paymentStatus, payment_intent: `pi_${random(24)}` });
    if (paymentStatus === 'paid') this.charge(id);
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

  /** Refunds `amount` cents of a paid session's charge (all that is left by default); returns the charge. */
  refund(sessionId: string, amount?: number): FakeCharge {
    const charge = this.chargeOf(sessionId);
    charge.amount_refunded += amount ?? charge.amount - charge.amount_refunded;
    if (charge.amount_refunded > charge.amount) throw new Error('refunded more than the charge');
    charge.refunded = charge.amount_refunded === charge.amount;
    return charge;
  }

  /** The cardholder disputes a paid session's charge (its whole amount by default); returns the dispute. */
  dispute(sessionId: string, amount?: number): FakeDispute {
    const charge = this.chargeOf(sessionId);
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
    const session = this.session(sessionId);
    if (!session.payment_intent) return;
    const charge: FakeCharge = {
      id: `ch_${random(24)}`,
      object: 'charge',
      amount: session.amount_total,
      amount_captured: session.amount_total,
      amount_refunded: 0,
      currency: session.currency,
      payment_intent: session.payment_intent,
      paid: true,
      refunded: false,
      disputed: false,
      status: 'succeeded',
      created: seconds(),
      livemode: false,
    };
    this.charges.set(charge.id, charge);
  }

  expire(id: string) {
    this.session(id).status = 'expired';
  }

  /** The next request (whatever it is) fails with this status and Stripe error body. */
  failNext(status: number, error: StripeErrorBody) {
    this.failures.push(new StripeFailure(status, error));
  }

  /**
   * A snapshot event as Stripe would deliver it now, of the checkout session, charge or dispute with
   * this id; `object` overrides fields of the snapshot.
   */
  event(type: string, id: string, object: Partial<FakeCheckoutSession> | Partial<FakeCharge> | Partial<FakeDispute> = {}) {
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
        object: { ...structuredClone(this.sessions.get(id) ?? this.charges.get(id) ?? this.disputes.get(id) ?? { id, object: 'checkout.session' }), ...object },
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
      const result = earlier?.response ?? this.route(method, url.pathname, params);
      if (typeof key === 'string') this.idempotent.set(key, { fingerprint, response: result });
      reply(200, result);
    } catch (error) {
      if (error instanceof StripeFailure) reply(error.status, { error: error.error });
      else reply(500, { error: { type: 'api_error', message: `fake Stripe failed: ${String(error)}` } });
    }
  }

  private route(method: string, path: string, params: FormParams): unknown {
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
      if (method === 'GET' && !action) return session;
      if (method === 'POST' && action) {
        if (session.status !== 'open') throw invalid('Only Checkout Sessions with a status in ["open"] can be expired.');
        session.status = 'expired';
        return session;
      }
    }
    throw new StripeFailure(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
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
    if (field(params.mode) !== 'payment') throw invalid('This fake supports mode=payment only.', { param: 'mode' });
    const items = list(params.line_items).map((item) => object(item));
    if (items.length === 0) throw invalid('Missing required param: line_items.', { param: 'line_items' });
    const amounts = items.map((item, index) => {
      const unitAmount = Number(field(object(item.price_data).unit_amount));
      if (!Number.isInteger(unitAmount)) throw invalid('Invalid integer', { param: `line_items[${index}][price_data][unit_amount]` });
      if (unitAmount < 50) throw invalid("The Checkout Session's total amount due must add up to at least $0.50 usd", { code: 'amount_too_small' });
      return unitAmount * Number(field(item.quantity) ?? '1');
    });
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
    const subtotal = amounts.reduce((sum, amount) => sum + amount, 0);
    const session: FakeCheckoutSession = {
      id,
      object: 'checkout.session',
      client_secret: `${id}_secret_${random(24)}`,
      ui_mode: uiMode,
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      currency: field(object(object(items[0]).price_data).currency) ?? 'usd',
      amount_subtotal: subtotal,
      amount_total: subtotal,
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
      automatic_tax: { enabled: automaticTax, liability: null, provider: null, status: automaticTax ? 'requires_location_inputs' : null },
      customer: customer ?? null,
      client_reference_id: field(params.client_reference_id) ?? null,
      metadata: object(params.metadata) as Record<string, string>,
      return_url: returnUrl ?? null,
      allowed_payment_method_types: list(params.allowed_payment_method_types).map(String),
      payment_intent: null,
      url: null,
      created: seconds(),
      expires_at: Number(field(params.expires_at) ?? seconds() + 24 * 60 * 60),
      livemode: false,
    };
    this.sessions.set(id, session);
    return session;
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

import { randomUUID } from 'node:crypto';
import { setupTestDb } from '@meterway/db/testing';
import { eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations, schema } from '../../db/index.js';
import { billingCustomers, organizations } from '../../db/schema/index.js';
import { loadApiConfig } from '../../env.js';
import { AppError } from '../../errors/app-error.js';
import { setupFakeStripe } from '../../testing/fake-stripe.js';
import { expectLedgerConsistent } from '../../testing/ledger-invariant.js';
import { createPaymentProvider } from './create-payment-provider.js';
import type { CheckoutRequest } from './payment-provider.js';
import { stripeProvider } from './stripe-provider.js';

const testDb = setupTestDb({ schema, migrations });
const fake = setupFakeStripe();

const provider = (automaticTax = true) =>
  stripeProvider({ stripe: fake.stripe, db: testDb.db, publishableKey: 'pk_test_meterway', webhookSecret: 'whsec_test_provider', automaticTax });

const returnUrl = 'https://console.example.com/add-credits?checkoutSessionId={CHECKOUT_SESSION_ID}';

async function newOrganization(): Promise<Omit<CheckoutRequest, 'creditNanos' | 'returnUrl'>> {
  const organizationId = randomUUID();
  await testDb.db.insert(organizations).values({ id: organizationId, name: 'Ada Lovelace’s organisation' });
  return { organizationId, organizationName: 'Ada Lovelace’s organisation', email: `ada-${organizationId.slice(0, 8)}@example.com` };
}

const sessionCreates = () => fake.requestsTo('POST', '/v1/checkout/sessions');
const customerCreates = () => fake.requestsTo('POST', '/v1/customers');

afterEach(async () => {
  await expectLedgerConsistent(testDb.db);
});

describe('stripe provider: checkout sessions', () => {
  it('creates an elements-mode session for the credit in cents, with the literal return-url placeholder', async () => {
    const organization = await newOrganization();
    const before = sessionCreates().length;
    const started = await provider().createCheckout({ ...organization, creditNanos: 25_000_000_000n, returnUrl });

    const [request] = sessionCreates().slice(before);
    const customerId = fake.session(started.checkoutSessionId).customer;
    expect(customerId).toMatch(/^cus_/);
    expect(request?.params).toEqual({
      ui_mode: 'elements',
      mode: 'payment',
      line_items: [{ quantity: '1', price_data: { currency: 'usd', unit_amount: '2500', tax_behavior: 'exclusive', product_data: { name: 'Usage credit' } } }],
      customer: customerId,
      customer_update: { address: 'auto', name: 'auto' },
      automatic_tax: { enabled: 'true' },
      return_url: returnUrl,
      allowed_payment_method_types: ['card'],
      metadata: { organizationId: organization.organizationId },
      client_reference_id: organization.organizationId,
    });
    // Form-encoded once on the wire, so Stripe receives the braces themselves, not %7B…%7D.
    expect(request?.body).toContain('return_url=https%3A%2F%2Fconsole.example.com%2Fadd-credits%3FcheckoutSessionId%3D%7BCHECKOUT_SESSION_ID%7D');
    expect(request?.headers['stripe-version']).toBe('2026-10-28.endive');
    expect(request?.headers['idempotency-key']).toMatch(/^checkout-session-[0-9a-f-]{36}$/);

    const session = fake.session(started.checkoutSessionId);
    expect(started).toEqual({
      checkoutSessionId: session.id,
      clientSecret: session.client_secret,
      expiresAt: new Date(session.expires_at * 1000),
      taxNanos: 0n,
    });
    expect(started.checkoutSessionId).toMatch(/^cs_test_/);
    expect(session).toMatchObject({ status: 'open', payment_status: 'unpaid', amount_subtotal: 2500, amount_total: 2500 });
  });

  it('reuses the organisation’s one customer across top-ups, created with its name, e-mail and id', async () => {
    const organization = await newOrganization();
    const customersBefore = customerCreates().length;
    const first = await provider().createCheckout({ ...organization, creditNanos: 10_000_000_000n, returnUrl });
    const second = await provider().createCheckout({ ...organization, creditNanos: 12_340_000_000n, returnUrl });

    const created = customerCreates().slice(customersBefore);
    expect(created.map((request) => request.params)).toEqual([
      { name: organization.organizationName, email: organization.email, metadata: { organizationId: organization.organizationId } },
    ]);
    const customerId = fake.session(first.checkoutSessionId).customer;
    expect(fake.session(second.checkoutSessionId).customer).toBe(customerId);
    expect(fake.session(second.checkoutSessionId).amount_subtotal).toBe(1234);
    const rows = await testDb.db.select().from(billingCustomers).where(eq(billingCustomers.organizationId, organization.organizationId));
    expect(rows).toEqual([{ organizationId: organization.organizationId, provider: 'stripe', customerId }]);
    const keys = sessionCreates()
      .slice(-2)
      .map((request) => request.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(2);
  });

  it('settles on one stored customer when first top-ups race', async () => {
    const organization = await newOrganization();
    const started = await Promise.all(Array.from({ length: 5 }, () => provider().createCheckout({ ...organization, creditNanos: 5_000_000_000n, returnUrl })));
    const rows = await testDb.db.select().from(billingCustomers).where(eq(billingCustomers.organizationId, organization.organizationId));
    expect(rows).toHaveLength(1);
    expect(new Set(started.map(({ checkoutSessionId }) => fake.session(checkoutSessionId).customer))).toEqual(new Set([rows[0]?.customerId]));
  });

  it('leaves tax and the customer untouched when automatic tax is off', async () => {
    const organization = await newOrganization();
    const started = await provider(false).createCheckout({ ...organization, creditNanos: 1_000_000_000n, returnUrl });
    const request = sessionCreates().at(-1);
    expect(request?.params.automatic_tax).toEqual({ enabled: 'false' });
    expect(request?.params).not.toHaveProperty('customer_update');
    expect(fake.session(started.checkoutSessionId).automatic_tax.enabled).toBe(false);
  });

  it('turns Stripe being down into a 503 and Stripe refusing a request into a plain 500', async () => {
    const organization = await newOrganization();
    fake.failNext(500, { type: 'api_error', message: 'An unknown error occurred' });
    const down = await provider()
      .createCheckout({ ...organization, creditNanos: 1_000_000_000n, returnUrl })
      .catch((error: unknown) => error);
    expect(down).toBeInstanceOf(AppError);
    expect(down).toMatchObject({ code: 'ServiceUnavailable', status: 503 });

    fake.failNext(401, { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_live_****' });
    const refused = await provider()
      .createCheckout({ ...organization, creditNanos: 1_000_000_000n, returnUrl })
      .catch((error: unknown) => error);
    expect(refused).not.toBeInstanceOf(AppError);
    expect(refused).toBeInstanceOf(Error);
    expect(refused).not.toHaveProperty('statusCode');
    expect((refused as Error).message).toMatch(/^Stripe could not create a customer: StripeAuthenticationError/);
    expect((refused as Error).cause).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
  });
});

describe('stripe provider: portal and configuration', () => {
  it('opens the billing portal for the organisation’s customer, creating it on first need', async () => {
    const organization = await newOrganization();
    const customersBefore = customerCreates().length;
    const url = await provider().createPortalUrl({ ...organization, personId: randomUUID(), returnUrl: 'https://console.example.com/dashboard' });
    expect(url).toMatch(/^https:\/\/billing\.stripe\.com\/p\/session\/test_/);
    expect(customerCreates().length - customersBefore).toBe(1);
    const [row] = await testDb.db.select().from(billingCustomers).where(eq(billingCustomers.organizationId, organization.organizationId));
    expect(fake.requestsTo('POST', '/v1/billing_portal/sessions').at(-1)?.params).toEqual({
      customer: row?.customerId,
      return_url: 'https://console.example.com/dashboard',
    });

    const started = await provider().createCheckout({ ...organization, creditNanos: 1_000_000_000n, returnUrl });
    expect(fake.session(started.checkoutSessionId).customer).toBe(row?.customerId);
    expect(customerCreates().length - customersBefore).toBe(1);
  });

  it('tells the console it is Stripe, with the publishable key', () => {
    expect(provider().publicConfig()).toEqual({ provider: 'stripe', stripePublishableKey: 'pk_test_meterway' });
  });

  it('is what the configuration picks when STRIPE_SECRET_KEY is set, and refuses to start half-configured', () => {
    const stripeConfig = loadApiConfig({
      STRIPE_SECRET_KEY: 'sk_test_config',
      STRIPE_WEBHOOK_SECRET: 'whsec_config\n',
      STRIPE_PUBLISHABLE_KEY: 'pk_test_config',
    });
    const fromConfig = createPaymentProvider(stripeConfig, 'x'.repeat(32), testDb.db);
    expect(fromConfig.name).toBe('stripe');
    expect(fromConfig.publicConfig()).toEqual({ provider: 'stripe', stripePublishableKey: 'pk_test_config' });
    expect(createPaymentProvider(loadApiConfig({}), 'x'.repeat(32), testDb.db).name).toBe('sandbox');
    expect(() => loadApiConfig({ STRIPE_SECRET_KEY: 'sk_test_config' })).toThrow(
      /STRIPE_WEBHOOK_SECRET: is required when STRIPE_SECRET_KEY is set\n.*STRIPE_PUBLISHABLE_KEY: is required when STRIPE_SECRET_KEY is set/,
    );
  });
});

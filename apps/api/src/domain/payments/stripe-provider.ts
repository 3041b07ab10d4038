import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import type Stripe from 'stripe';
import { billingCustomers } from '../../db/schema/index.js';
import type { CheckoutRequest, PaymentProvider } from './payment-provider.js';
import { callStripe } from './stripe-call.js';
import { nanosPerCent } from '../money.js';
import { applyStripeEvent, verifyStripeEvent } from './stripe-webhook.js';

export type StripeProviderOptions = {
  stripe: Stripe;
  db: Database;
  publishableKey: string;
  /** The endpoint's signing secret (whsec_…); never logged. */
  webhookSecret: string;
  /** Stripe Tax adds tax on top of the credit, from the buyer's address. */
  automaticTax: boolean;
};

type Organization = { organizationId: string; organizationName: string; email: string };

/**
 * Stripe Checkout in the custom-UI mode (`ui_mode: 'elements'`, payments-protocol.md §1): the
 * console renders Stripe Elements with the client secret; payment results arrive as webhooks.
 * Each organisation is one Stripe Customer, so its receipts and cards live together in the portal.
 */
export function stripeProvider(options: StripeProviderOptions): PaymentProvider {
  const { stripe, db } = options;
  return {
    name: 'stripe',
    createCheckout: async (request) => {
      const customer = await ensureCustomer(stripe, db, request);
      // A new top-up each call; the key makes the SDK's own retries of this request safe.
      const idempotencyKey = `checkout-session-${randomUUID()}`;
      const session = await callStripe('create a checkout session', () =>
        stripe.checkout.sessions.create(checkoutParams(request, customer, options.automaticTax), { idempotencyKey }),
      );
      if (!session.client_secret) throw new Error(`Stripe returned checkout session ${session.id} without a client secret.`);
      return { checkoutSessionId: session.id, clientSecret: session.client_secret, expiresAt: new Date(session.expires_at * 1000), taxNanos: 0n };
    },
    // TODO(#22 helper): replace with the real setup session and off-session charge.
    createSetup: async () => {
      throw new Error('not implemented yet');
    },
    chargeSavedCard: async () => {
      throw new Error('not implemented yet');
    },
    createPortalUrl: async (request) => {
      const customer = await ensureCustomer(stripe, db, request);
      const portal = await callStripe('open the billing portal', () => stripe.billingPortal.sessions.create({ customer, return_url: request.returnUrl }));
      return portal.url;
    },
    publicConfig: () => ({ provider: 'stripe', stripePublishableKey: options.publishableKey }),
    receiveWebhook: async (delivery) => applyStripeEvent({ db, stripe }, verifyStripeEvent(stripe, options.webhookSecret, delivery), delivery.now),
  };
}

function checkoutParams(request: CheckoutRequest, customer: string, automaticTax: boolean): Stripe.Checkout.SessionCreateParams {
  if (request.creditNanos <= 0n || request.creditNanos % nanosPerCent !== 0n) throw new Error('A Stripe top-up is a positive number of whole cents.');
  return {
    ui_mode: 'elements',
    mode: 'payment',
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: 'usd',
          unit_amount: Number(request.creditNanos / nanosPerCent),
          tax_behavior: 'exclusive',
          product_data: { name: 'Usage credit' },
        },
      },
    ],
    customer,
    // With automatic tax Stripe needs the customer's address; Checkout collects it and saves it here.
    ...(automaticTax ? { customer_update: { address: 'auto', name: 'auto' } } : {}),
    automatic_tax: { enabled: automaticTax },
    // Passed as is: Stripe substitutes the literal {CHECKOUT_SESSION_ID}, which must stay unencoded.
    return_url: request.returnUrl,
    allowed_payment_method_types: ['card'],
    metadata: { organizationId: request.organizationId },
    client_reference_id: request.organizationId,
  };
}

async function storedCustomer(db: Database, organizationId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ customerId: billingCustomers.customerId })
    .from(billingCustomers)
    .where(and(eq(billingCustomers.organizationId, organizationId), eq(billingCustomers.provider, 'stripe')))
    .limit(1);
  return row?.customerId;
}

/**
 * The organisation's Stripe Customer, created on first need. Concurrent first top-ups may each
 * create one; the first stored wins and every caller uses it (the others stay empty at Stripe).
 */
async function ensureCustomer(stripe: Stripe, db: Database, organization: Organization): Promise<string> {
  const existing = await storedCustomer(db, organization.organizationId);
  if (existing) return existing;
  const created = await callStripe('create a customer', () =>
    stripe.customers.create({ name: organization.organizationName, email: organization.email, metadata: { organizationId: organization.organizationId } }),
  );
  await db.insert(billingCustomers).values({ organizationId: organization.organizationId, provider: 'stripe', customerId: created.id }).onConflictDoNothing();
  const winner = await storedCustomer(db, organization.organizationId);
  if (!winner) throw new Error(`organisation ${organization.organizationId} has a billing customer at another provider`);
  return winner;
}

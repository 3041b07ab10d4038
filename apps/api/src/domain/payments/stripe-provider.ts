import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import type Stripe from 'stripe';
import type { CheckoutRequest, PaymentProvider } from './payment-provider.js';
import { callStripe } from './stripe-call.js';
import { nanosPerCent } from '../money.js';
import { ensureCustomer } from './stripe-customers.js';
import { chargeStripeSavedCard, createStripeSetup } from './stripe-saved-cards.js';
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

/**
 * Stripe Checkout in the custom-UI mode (`ui_mode: 'elements'`, payments-protocol.md §1): the
 * console renders Stripe Elements with the client secret; payment results arrive as webhooks.
 * Each organisation is one Stripe Customer, so its receipts and cards live together in the portal;
 * auto top-up saves a card with a setup-mode session and charges it off-session (stripe-saved-cards.ts).
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
    createSetup: async (request) => createStripeSetup({ stripe, db }, request),
    chargeSavedCard: async (charge) => chargeStripeSavedCard({ stripe, db }, charge),
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

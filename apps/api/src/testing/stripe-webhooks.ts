import { expect } from 'vitest';
import { stripeProvider } from '../domain/payments/stripe-provider.js';
import { setupFakeStripe } from './fake-stripe.js';
import { setupTestApp } from './setup-test-app.js';

export const webhookSecret = 'whsec_test_meterway_webhooks';

/**
 * The api with Stripe as its payment provider, pointed at this file's fake Stripe, and a real
 * identity service; helpers start top-ups as the console does and deliver webhooks as Stripe does.
 */
export function setupStripeWebhooks(env: NodeJS.ProcessEnv = {}) {
  const fake = setupFakeStripe();
  const t = setupTestApp(
    { CONSOLE_URL: 'https://console.example.com', ...env },
    {
      identity: true,
      payments: ({ db }) => stripeProvider({ stripe: fake.stripe, db: db.db, publishableKey: 'pk_test_meterway', webhookSecret, automaticTax: false }),
    },
  );
  type Event = ReturnType<typeof fake.event>;

  /** A top-up through the BFF, as the console starts one; returns the checkout session id. */
  async function topUp(cookie: string, amount: number) {
    const response = await t.app.inject({ method: 'POST', url: '/bff/stripe/checkout-session', headers: { cookie }, payload: { amount } });
    expect(response.statusCode).toBe(200);
    return response.json().checkoutSessionId as string;
  }

  /** Delivers an event as Stripe does: JSON bytes, signed over `t=<timestamp>.<body>` with the endpoint secret. */
  function deliver(event: Event | Record<string, unknown>, options: { secret?: string; timestamp?: number; signature?: string | null; body?: string } = {}) {
    const payload = JSON.stringify(event, null, 2);
    const signature =
      options.signature !== undefined
        ? options.signature
        : fake.stripe.webhooks.generateTestHeaderString({
            payload,
            secret: options.secret ?? webhookSecret,
            ...(options.timestamp ? { timestamp: options.timestamp } : {}),
          });
    return t.app.inject({
      method: 'POST',
      url: '/webhooks/stripe',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        ...(signature === null ? {} : { 'stripe-signature': signature }),
      },
      payload: options.body ?? payload,
    });
  }

  async function expectReceived(event: Event | Record<string, unknown>) {
    const response = await deliver(event);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ received: true });
  }

  /** A paid checkout session of the same Stripe account that Meterway did not create (another product's). */
  async function strangerSession() {
    const stranger = await fake.stripe.checkout.sessions.create({
      ui_mode: 'elements',
      mode: 'payment',
      return_url: 'https://elsewhere.example.com/done?session={CHECKOUT_SESSION_ID}',
      line_items: [{ quantity: 1, price_data: { currency: 'usd', unit_amount: 5000, product_data: { name: 'Something else' } } }],
    });
    fake.complete(stranger.id);
    return stranger.id;
  }

  return { fake, t, topUp, deliver, expectReceived, strangerSession };
}

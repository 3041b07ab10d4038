import type { Database } from '@meterway/db';
import Stripe from 'stripe';
import type { ApiConfig } from '../../env.js';
import type { PaymentProvider } from './payment-provider.js';
import { sandboxProvider } from './sandbox-provider.js';
import { stripeProvider } from './stripe-provider.js';

/** Stripe when STRIPE_SECRET_KEY is set; otherwise the test-mode sandbox. */
export function createPaymentProvider(config: ApiConfig, secret: string, db: Database): PaymentProvider {
  if (config.stripe) {
    const { secretKey, webhookSecret, publishableKey, automaticTax } = config.stripe;
    const stripe = new Stripe(secretKey, { maxNetworkRetries: 2, timeout: 20_000, telemetry: false });
    return stripeProvider({ stripe, db, publishableKey, webhookSecret, automaticTax });
  }
  return sandboxProvider({ apiUrl: config.apiUrl, secret, taxRate: config.sandbox.taxRate, checkoutTtlMinutes: config.sandbox.checkoutTtlMinutes });
}

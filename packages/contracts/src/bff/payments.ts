import { z } from 'zod';
import { validationMessages as m } from '../common/messages.js';

/** Spec §9: a top-up is 1 to 100 dollars; whole cents only. */
export const minCheckoutAmount = 1;
export const maxCheckoutAmount = 100;

export const checkoutSessionRequestSchema = z.object({
  amount: z
    .number({ error: m.required })
    .finite(m.required)
    .min(minCheckoutAmount, m.min(minCheckoutAmount))
    .max(maxCheckoutAmount, m.max(maxCheckoutAmount))
    .refine((amount) => Math.abs(Math.round(amount * 100) - amount * 100) < 1e-6, 'At most 2 decimals'),
});

export const checkoutSessionResponseSchema = z.object({ checkoutSessionId: z.string(), clientSecret: z.string() });

/**
 * GET /bff/checkout-sessions/:checkoutSessionId (the roles that manage credit): what a top-up came
 * to. `creditAmount` is the credit bought; `owedPaidAmount` the part of it that paid what the
 * organisation owed first (0 when it owed nothing), so the rest went to the balance. Dollars.
 */
export const checkoutOutcomeSchema = z.object({
  checkoutSessionId: z.string(),
  status: z.enum(['IN_PROGRESS', 'SUCCEEDED', 'FAILED', 'EXPIRED']),
  creditAmount: z.number(),
  owedPaidAmount: z.number(),
});
export type CheckoutOutcome = z.infer<typeof checkoutOutcomeSchema>;
export const customerPortalResponseSchema = z.object({ url: z.string() });

/** GET /bff/config: which payment provider the console talks to. */
export const paymentConfigSchema = z.object({
  paymentProvider: z.enum(['stripe', 'sandbox']),
  stripePublishableKey: z.string().optional(),
  /** The sandbox runs in production (SANDBOX_PAYMENTS=allow): every console page says so, not only the checkout. */
  testModeEverywhere: z.boolean().optional(),
});

/** The sandbox's checkout page data (test mode, no real money). */
export const sandboxCheckoutSchema = z.object({
  checkoutSessionId: z.string(),
  /** `setup` saves a card for auto top-up (issue #22): credit, tax and total are 0 and no money moves. */
  mode: z.enum(['payment', 'setup']),
  status: z.enum(['IN_PROGRESS', 'SUCCEEDED', 'FAILED', 'EXPIRED']),
  currency: z.literal('usd'),
  /** Dollars. */
  credit: z.number(),
  tax: z.number(),
  total: z.number(),
  expiresAt: z.string(),
  testMode: z.literal(true),
});

export const sandboxConfirmSchema = z.object({
  clientSecret: z.string().min(1, m.required).max(200),
  cardNumber: z
    .string({ error: m.required })
    .transform((value) => value.replace(/[\s-]/g, ''))
    .pipe(z.string().regex(/^\d{12,19}$/, 'Your card number is incorrect.')),
  expiry: z.string({ error: m.required }).regex(/^(0[1-9]|1[0-2])\s*\/\s*\d{2}$/, "Your card's expiration date is incomplete."),
  cvc: z.string({ error: m.required }).regex(/^\d{3,4}$/, "Your card's security code is incomplete."),
  postalCode: z.string().max(20).optional(),
});

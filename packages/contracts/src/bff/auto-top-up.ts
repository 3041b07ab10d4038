import { z } from 'zod';
import { validationMessages as m } from '../common/messages.js';
import { maxCheckoutAmount, minCheckoutAmount } from './payments.js';

/** The highest monthly cap on auto top-up charges, in dollars (issue #22). */
export const maxAutoTopUpMonthlyCap = 1_000;
/** The highest threshold, in dollars: the balance below which a charge is made. */
export const maxAutoTopUpThreshold = 1_000;

const cents = (amount: number) => Math.abs(Math.round(amount * 100) - amount * 100) < 1e-6;
const dollars = (min: number, max: number) =>
  z.number({ error: m.required }).finite(m.required).min(min, m.min(min)).max(max, m.max(max)).refine(cents, 'At most 2 decimals');

/**
 * PUT /bff/auto-top-up (owners, admins and billing): whenever the balance is below
 * `thresholdAmount` and no charge is under way, charge the saved card `topUpAmount` (the spec's
 * 1–100 dollar rule of a top-up), at most `monthlyCapAmount` in charges per calendar month (UTC).
 * Turning it on needs a saved card (409 otherwise) and clears `disabledReason`; when the balance is
 * already below the threshold, the charge is made at once.
 */
export const autoTopUpInputSchema = z
  .object({
    enabled: z.boolean({ error: m.required }),
    thresholdAmount: dollars(minCheckoutAmount, maxAutoTopUpThreshold),
    topUpAmount: dollars(minCheckoutAmount, maxCheckoutAmount),
    monthlyCapAmount: dollars(minCheckoutAmount, maxAutoTopUpMonthlyCap),
  })
  .refine((input) => input.monthlyCapAmount >= input.topUpAmount, {
    path: ['monthlyCapAmount'],
    message: 'The monthly cap must be at least the top-up amount',
  });
export type AutoTopUpInput = z.infer<typeof autoTopUpInputSchema>;

/**
 * GET /bff/auto-top-up (every role). Before anything is saved: off, with the defaults the console
 * offers. `chargedThisMonthAmount` counts this month's charges not declined (pending ones too);
 * `disabledReason` says why auto top-up turned itself off (a declined charge, a refunded or
 * disputed one), until it is turned on again; `heldBackReason` says why no charge is made while it
 * is on and the balance is below the threshold (the monthly cap), null otherwise.
 */
export const autoTopUpSchema = z.object({
  enabled: z.boolean(),
  thresholdAmount: z.number(),
  topUpAmount: z.number(),
  monthlyCapAmount: z.number(),
  chargedThisMonthAmount: z.number(),
  paymentMethod: z.object({ brand: z.string(), last4: z.string() }).nullable(),
  disabledReason: z.string().nullable(),
  heldBackReason: z.string().nullable(),
});
export type AutoTopUp = z.infer<typeof autoTopUpSchema>;

/** What auto top-up starts as until an organisation saves its own. */
export const defaultAutoTopUp = { thresholdAmount: 5, topUpAmount: 20, monthlyCapAmount: 100 } as const;

import Stripe from 'stripe';
import { AppError } from '../../errors/app-error.js';

/** Failures worth trying again later: Stripe unreachable, overloaded or failing on its side. */
const transient: readonly string[] = ['StripeConnectionError', 'StripeAPIError', 'StripeRateLimitError'];

/**
 * Calls Stripe. Its errors carry Stripe's own HTTP status, which must not reach the browser as
 * ours (Stripe's 401 for a bad key is not the viewer's 401), so a transient failure becomes our
 * 503 and anything else a plain error: a 500 that is logged and shows no Stripe internals.
 */
export async function callStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeError)) throw error;
    if (transient.includes(error.type)) {
      throw new AppError('ServiceUnavailable', 'The payment provider does not answer. Try again in a moment.', { retryAfter: 5 });
    }
    throw new Error(`Stripe could not ${what}: ${error.type}${error.code ? ` (${error.code})` : ''}, request ${error.requestId ?? 'unknown'}`, {
      cause: error,
    });
  }
}

/** The id of a field Stripe sends as an id or, when expanded, as the object. */
export const idOf = (field: string | { id: string } | null | undefined): string | undefined => (typeof field === 'string' ? field : field?.id);

/**
 * The receipt of a PaymentIntent's charge, when it was read with `latest_charge` expanded (Stripe's
 * receipt_url, kept up to date with refunds); undefined when there is none.
 */
export const receiptOf = (intent: string | Stripe.PaymentIntent | null | undefined): string | undefined => {
  const charge = typeof intent === 'object' ? intent?.latest_charge : undefined;
  return (typeof charge === 'object' && charge?.receipt_url) || undefined;
};

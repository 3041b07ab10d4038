import type { Database } from '@meterway/db';
import type Stripe from 'stripe';
import { autoTopUpCharges } from '../../db/schema/index.js';
import { chargeByKey, markChargeFailed, markChargeSucceeded } from '../auto-top-up/charges.js';
import { saveCard } from '../auto-top-up/save-card.js';
import { nanosPerCent } from '../money.js';
import { type CheckoutKey, markClosed } from './checkout-sessions.js';
import { ourIdOf } from './payment-objects.js';
import type { WebhookReceipt } from './payment-provider.js';
import { callStripe, idOf, receiptOf } from './stripe-call.js';
import { alreadyHandled, recordEvent } from './stripe-event-log.js';

type Deps = { db: Database; stripe: Stripe };
type Outcome = WebhookReceipt['outcome'];

const paymentIntentEventTypes = ['payment_intent.succeeded', 'payment_intent.payment_failed'] as const;
type PaymentIntentEvent = Extract<Stripe.Event, { type: (typeof paymentIntentEventTypes)[number] }>;
export const isPaymentIntentEvent = (event: Stripe.Event): event is PaymentIntentEvent => (paymentIntentEventTypes as readonly string[]).includes(event.type);

/**
 * An event of one of our setup-mode sessions (the caller checked it is ours). The session is
 * re-read: once complete, its SetupIntent (with the card expanded) names the saved card, which
 * becomes the organisation's auto top-up card; an expired one closes. Nothing else moves it.
 */
export async function applyStripeSetupEvent(deps: Deps, event: Stripe.Event, ours: CheckoutKey, now: Date): Promise<Outcome> {
  const session = await callStripe('read the setup session', () => deps.stripe.checkout.sessions.retrieve(ours.id));
  const setupIntentId = idOf(session.setup_intent);
  const card = session.status === 'complete' && setupIntentId ? await savedCard(deps.stripe, setupIntentId) : undefined;
  return deps.db.transaction(async (tx) => {
    if (!(await recordEvent(tx, event))) return 'duplicate';
    if (card) await saveCard(tx, { organizationId: ours.organizationId, checkoutSessionId: ours.id, ...card, now });
    else if (session.status === 'expired') await markClosed(tx, ours, 'EXPIRED', now);
    return 'handled';
  });
}

async function savedCard(stripe: Stripe, setupIntentId: string) {
  const intent = await callStripe('read the setup intent', () => stripe.setupIntents.retrieve(setupIntentId, { expand: ['payment_method'] }));
  const method = intent.payment_method;
  if (intent.status !== 'succeeded' || !method || typeof method === 'string' || !method.card) return undefined;
  return { paymentMethodId: method.id, brand: method.card.brand, last4: method.card.last4 };
}

/**
 * An auto top-up charge's PaymentIntent succeeded or failed. Only a PaymentIntent naming one of our
 * Stripe charges, with its organisation, counts (a top-up's own PaymentIntent names none; a charge
 * named under another organisation is found by neither). The event is a cue: the
 * PaymentIntent is re-read, and a paid one credits the charge whatever order the events came in (a
 * success wins over an earlier failure; a late failure of a paid intent changes nothing); a failed
 * one turns auto top-up off with Stripe's message.
 */
export async function applyStripePaymentIntentEvent(deps: Deps, event: PaymentIntentEvent, now: Date): Promise<Outcome> {
  const chargeId = ourIdOf(event.data.object.metadata?.auto_top_up_charge_id);
  const organizationId = ourIdOf(event.data.object.metadata?.organization_id);
  if (!chargeId || !organizationId) return 'ignored';
  const [charge] = await deps.db.select().from(autoTopUpCharges).where(chargeByKey({ organizationId, chargeId }));
  if (!charge || charge.provider !== 'stripe') return 'ignored';
  if (await alreadyHandled(deps.db, event.id)) return 'duplicate';

  // With its charge, for the receipt.
  const intent = await callStripe('read the payment intent', () => deps.stripe.paymentIntents.retrieve(event.data.object.id, { expand: ['latest_charge'] }));
  // The charge's own payment, for the amount it claimed: anything else is not this charge's money.
  const matches =
    intent.metadata.auto_top_up_charge_id === charge.id &&
    intent.metadata.organization_id === charge.organizationId &&
    intent.currency === 'usd' &&
    BigInt(intent.amount) * nanosPerCent === charge.amountNanos;
  if (!matches) return 'ignored';
  return deps.db.transaction(async (tx) => {
    if (!(await recordEvent(tx, event))) return 'duplicate';
    if (intent.status === 'succeeded') {
      const receiptUrl = receiptOf(intent);
      await markChargeSucceeded(tx, { organizationId, chargeId, paymentIntentId: intent.id, ...(receiptUrl ? { receiptUrl } : {}), now });
    } else if (event.type === 'payment_intent.payment_failed' && intent.status !== 'processing') {
      const message = intent.last_payment_error?.message ?? 'The card was declined.';
      await markChargeFailed(tx, { organizationId, chargeId, paymentIntentId: intent.id, message, now });
    }
    return 'handled';
  });
}

import type { Database } from '@meterway/db';
import Stripe from 'stripe';
import { AppError } from '../../errors/app-error.js';
import { nanosPerCent } from '../money.js';
import { type CheckoutKey, findCheckout, markClosed, markSucceeded } from './checkout-sessions.js';
import { ourIdOf } from './payment-objects.js';
import type { WebhookDelivery, WebhookReceipt } from './payment-provider.js';
import { callStripe, idOf, receiptOf } from './stripe-call.js';
import { applyStripePaymentIntentEvent, applyStripeSetupEvent, isPaymentIntentEvent } from './stripe-auto-top-up-events.js';
import { applyStripeChargeEvent, isChargeEvent } from './stripe-charge-events.js';
import { alreadyHandled, recordEvent } from './stripe-event-log.js';

/**
 * The only events we act on (these, the charge events and an auto top-up's payment_intent events);
 * anything else is acknowledged and ignored.
 */
const checkoutEventTypes = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
] as const;
type CheckoutEvent = Extract<Stripe.Event, { type: (typeof checkoutEventTypes)[number] }>;
const isCheckoutEvent = (event: Stripe.Event): event is CheckoutEvent => (checkoutEventTypes as readonly string[]).includes(event.type);

/**
 * The event, if Stripe signed exactly these bytes with our endpoint secret within the last five
 * minutes (the SDK's tolerance, against replays). Anything else is a 400 that changes nothing.
 */
export function verifyStripeEvent(stripe: Stripe, webhookSecret: string, delivery: WebhookDelivery): Stripe.Event {
  try {
    return stripe.webhooks.constructEvent(delivery.rawBody, delivery.signature ?? '', webhookSecret, undefined, undefined, delivery.now.getTime());
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeSignatureVerificationError)) throw new AppError('BadRequest', 'The webhook body is not a Stripe event.');
    // The SDK's first line says what was wrong (missing, malformed, mismatched, too old); the rest is a docs link.
    throw new AppError('BadRequest', `Webhook signature verification failed: ${(error.message.split('\n')[0] ?? '').trim()}`);
  }
}

/**
 * Applies a verified checkout event, once per event id. The event is a snapshot from when it was
 * sent and deliveries come late, twice or out of order, so the session is re-read from Stripe and
 * its current state decides; the checkout-session transitions make that monotonic (a paid session
 * is credited once and never leaves SUCCEEDED; a paid completion wins over an earlier expiry).
 * The event id is recorded in the same transaction as the change, so a crash redelivers cleanly.
 */
export async function applyStripeEvent(deps: { db: Database; stripe: Stripe }, event: Stripe.Event, now: Date): Promise<WebhookReceipt> {
  const receipt = (outcome: WebhookReceipt['outcome']): WebhookReceipt => ({ eventId: event.id, type: event.type, outcome });
  if (isChargeEvent(event)) {
    if (await alreadyHandled(deps.db, event.id)) return receipt('duplicate');
    return receipt(await applyStripeChargeEvent(deps, event, now));
  }
  if (isPaymentIntentEvent(event)) return receipt(await applyStripePaymentIntentEvent(deps, event, now));
  if (!isCheckoutEvent(event)) return receipt('ignored');
  // Only sessions we created count; an id we never issued is someone else's integration (or test data).
  // Ours name their organisation (metadata, client_reference_id: stripe-provider.ts, stripe-saved-cards.ts), which
  // only finds the session if it is that organisation's: a session named under another finds nothing, like a stranger's.
  const session = event.data.object;
  const organizationId = ourIdOf(session.metadata?.organizationId ?? session.client_reference_id);
  const ours = organizationId && (await findCheckout(deps.db, { organizationId, id: session.id }));
  if (!ours || ours.provider !== 'stripe') return receipt('ignored');
  if (await alreadyHandled(deps.db, event.id)) return receipt('duplicate');
  if (ours.mode === 'setup') return receipt(await applyStripeSetupEvent(deps, event, ours, now));

  // With its payment's charge, for the receipt.
  const current = await callStripe('read the checkout session', () =>
    deps.stripe.checkout.sessions.retrieve(ours.id, { expand: ['payment_intent.latest_charge'] }),
  );
  const handled = await deps.db.transaction(async (tx) => {
    if (!(await recordEvent(tx, event))) return false;
    await settle(tx, ours, current, event.type, now);
    return true;
  });
  return receipt(handled ? 'handled' : 'duplicate');
}

async function settle(tx: Database, key: CheckoutKey, session: Stripe.Checkout.Session, type: CheckoutEvent['type'], now: Date) {
  const paid = session.status === 'complete' && (session.payment_status === 'paid' || session.payment_status === 'no_payment_required');
  if (paid) {
    // The credit is what was paid for, before tax: Stripe's subtotal.
    const paymentIntentId = idOf(session.payment_intent);
    const receiptUrl = receiptOf(session.payment_intent);
    await markSucceeded(tx, key, now, {
      ...(session.amount_subtotal === null ? {} : { creditNanos: BigInt(session.amount_subtotal) * nanosPerCent }),
      ...(paymentIntentId ? { paymentIntentId } : {}),
      ...(receiptUrl ? { receiptUrl } : {}),
    });
  } else if (session.status === 'expired') {
    await markClosed(tx, key, 'EXPIRED', now);
  } else if (type === 'checkout.session.async_payment_failed' && session.status === 'complete') {
    await markClosed(tx, key, 'FAILED', now, 'The payment could not be collected. No credit was added; start a new top-up.');
  }
  // Otherwise (completed but unpaid: a delayed payment method still settling) it stays IN_PROGRESS.
}

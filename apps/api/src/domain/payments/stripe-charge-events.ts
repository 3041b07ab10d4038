import type { Database } from '@meterway/db';
import { and, eq, isNull } from 'drizzle-orm';
import type Stripe from 'stripe';
import { checkoutSessions, type DisputeStatus } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { nanosPerCent } from '../money.js';
import { type CheckoutKey, findCheckout } from './checkout-sessions.js';
import { ourIdOf, organizationOfPayment, recordPaymentObject } from './payment-objects.js';
import { callStripe, idOf } from './stripe-call.js';
import { applyChargeNotice, type ChargeNotice, type NoticeOutcome } from './top-up-reversals.js';

const chargeEventTypes = ['charge.refunded', 'charge.dispute.created', 'charge.dispute.closed'] as const;
type ChargeEvent = Extract<Stripe.Event, { type: (typeof chargeEventTypes)[number] }>;
export const isChargeEvent = (event: Stripe.Event): event is ChargeEvent => (chargeEventTypes as readonly string[]).includes(event.type);

type Deps = { db: Database; stripe: Stripe };

/**
 * A refund or dispute of a top-up's payment. The event is only a cue: the charge (and the
 * dispute) are re-read from Stripe, and their current state is what the ledger follows
 * (top-up-reversals.ts), so a late or repeated event changes nothing twice.
 */
export async function applyStripeChargeEvent(deps: Deps, event: ChargeEvent, now: Date): Promise<NoticeOutcome> {
  const notice = await readNotice(deps, event);
  return notice ? applyChargeNotice(deps.db, notice, now) : 'ignored';
}

async function readNotice(deps: Deps, event: ChargeEvent): Promise<ChargeNotice | undefined> {
  if (event.type === 'charge.refunded') {
    const charge = await callStripe('read the charge', () => deps.stripe.charges.retrieve(event.data.object.id));
    const topUp = await topUpNotice(deps, event, charge);
    return topUp && { ...topUp, type: event.type, refundedNanos: cents(charge.amount_refunded) };
  }
  const dispute = await callStripe('read the dispute', () => deps.stripe.disputes.retrieve(event.data.object.id));
  const chargeId = idOf(dispute.charge);
  if (!chargeId) return undefined;
  const charge = await callStripe('read the charge', () => deps.stripe.charges.retrieve(chargeId));
  const topUp = await topUpNotice(deps, event, charge);
  return (
    topUp && {
      ...topUp,
      type: event.type,
      disputeId: dispute.id,
      disputedNanos: cents(dispute.amount),
      status: disputeStatus(dispute.status),
    }
  );
}

const cents = (amount: number) => BigInt(amount) * nanosPerCent;

/** What every notice of a top-up's charge says: which event, which top-up, what the charge was. */
async function topUpNotice(deps: Deps, event: ChargeEvent, charge: Stripe.Charge) {
  const topUp = await topUpOf(deps, charge);
  if (!topUp) return undefined;
  return {
    provider: 'stripe' as const,
    eventId: event.id,
    organizationId: topUp.organizationId,
    checkoutSessionId: topUp.id,
    chargedNanos: cents(charge.amount),
  };
}

/** Won (or an inquiry closed, or prevented: no money left) gives back; lost keeps; anything else is still open. */
function disputeStatus(status: Stripe.Dispute.Status): DisputeStatus {
  if (status === 'won' || status === 'warning_closed' || status === 'prevented') return 'won';
  return status === 'lost' ? 'lost' : 'open';
}

/**
 * The top-up a charge paid. The charge and its payment intent name no organisation, so the payment
 * intent's is read from payment_objects (recorded with the intent when the top-up was paid), then
 * the top-up is found by (organization_id, payment_intent_id). For one paid before that was
 * recorded, Stripe is asked which checkout session the payment intent belongs to; that session
 * names its organisation (metadata), and only a session of ours under it counts; the intent is then
 * recorded on it and in payment_objects, in one transaction. A charge in another currency was not a
 * top-up. A top-up of ours not yet credited (its completion still being delivered) is answered 503,
 * so Stripe delivers the refund again after it.
 */
async function topUpOf({ db, stripe }: Deps, charge: Stripe.Charge): Promise<CheckoutKey | undefined> {
  const paymentIntentId = idOf(charge.payment_intent);
  if (!paymentIntentId || charge.currency !== 'usd') return undefined;
  const organizationId = await organizationOfPayment(db, 'stripe', paymentIntentId);
  if (organizationId) {
    const [known] = await db
      .select({ organizationId: checkoutSessions.organizationId, id: checkoutSessions.id })
      .from(checkoutSessions)
      .where(
        and(
          eq(checkoutSessions.organizationId, organizationId),
          eq(checkoutSessions.paymentIntentId, paymentIntentId),
          eq(checkoutSessions.provider, 'stripe'),
        ),
      );
    if (known) return known;
  }
  const sessions = await callStripe('find the checkout session of a payment', () =>
    stripe.checkout.sessions.list({ payment_intent: paymentIntentId, limit: 1 }),
  );
  const listed = sessions.data[0];
  const listedOrganization = listed && ourIdOf(listed.metadata?.organizationId ?? listed.client_reference_id);
  const ours = listed && listedOrganization && (await findCheckout(db, { organizationId: listedOrganization, id: listed.id }));
  if (!ours || ours.provider !== 'stripe') return undefined;
  if (ours.status !== 'SUCCEEDED')
    throw new AppError('ServiceUnavailable', 'The top-up this charge paid for is not credited yet; deliver the event again later.', { retryAfter: 60 });
  await db.transaction(async (tx) => {
    const [recorded] = await tx
      .update(checkoutSessions)
      .set({ paymentIntentId })
      .where(and(eq(checkoutSessions.organizationId, ours.organizationId), eq(checkoutSessions.id, ours.id), isNull(checkoutSessions.paymentIntentId)))
      .returning({ id: checkoutSessions.id });
    if (recorded) await recordPaymentObject(tx, { provider: 'stripe', id: paymentIntentId, organizationId: ours.organizationId });
  });
  return ours;
}

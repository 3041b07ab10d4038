import type { Database } from '@meterway/db';
import { and, eq, isNull } from 'drizzle-orm';
import type Stripe from 'stripe';
import { autoTopUpCharges, checkoutSessions, type DisputeStatus } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { chargeByKey } from '../auto-top-up/charges.js';
import { nanosPerCent } from '../money.js';
import { findCheckout } from './checkout-sessions.js';
import type { CreditedPayment } from './credited-payments.js';
import { ourIdOf, organizationOfPayment, recordPaymentObject } from './payment-objects.js';
import { applyChargeNotice, type ChargeNotice, type NoticeOutcome } from './payment-reversals.js';
import { callStripe, idOf } from './stripe-call.js';

const chargeEventTypes = ['charge.refunded', 'charge.dispute.created', 'charge.dispute.closed'] as const;
type ChargeEvent = Extract<Stripe.Event, { type: (typeof chargeEventTypes)[number] }>;
export const isChargeEvent = (event: Stripe.Event): event is ChargeEvent => (chargeEventTypes as readonly string[]).includes(event.type);

type Deps = { db: Database; stripe: Stripe };

/**
 * A refund or dispute of a payment that credited the ledger (a top-up's or an auto top-up's). The
 * event is only a cue: the charge (and the dispute) are re-read from Stripe, and their current
 * state is what the ledger follows (payment-reversals.ts), so a late or repeated event changes
 * nothing twice.
 */
export async function applyStripeChargeEvent(deps: Deps, event: ChargeEvent, now: Date): Promise<NoticeOutcome> {
  const notice = await readNotice(deps, event);
  return notice ? applyChargeNotice(deps.db, notice, now) : 'ignored';
}

async function readNotice(deps: Deps, event: ChargeEvent): Promise<ChargeNotice | undefined> {
  if (event.type === 'charge.refunded') {
    const charge = await callStripe('read the charge', () => deps.stripe.charges.retrieve(event.data.object.id));
    const paid = await paidNotice(deps, event, charge);
    return paid && { ...paid, type: event.type, refundedNanos: cents(charge.amount_refunded) };
  }
  const dispute = await callStripe('read the dispute', () => deps.stripe.disputes.retrieve(event.data.object.id));
  const chargeId = idOf(dispute.charge);
  if (!chargeId) return undefined;
  const charge = await callStripe('read the charge', () => deps.stripe.charges.retrieve(chargeId));
  const paid = await paidNotice(deps, event, charge);
  return (
    paid && {
      ...paid,
      type: event.type,
      disputeId: dispute.id,
      disputedNanos: cents(dispute.amount),
      status: disputeStatus(dispute.status),
    }
  );
}

const cents = (amount: number) => BigInt(amount) * nanosPerCent;

/** What every notice of a payment's charge says: which event, which payment, what the charge was. */
async function paidNotice(deps: Deps, event: ChargeEvent, charge: Stripe.Charge) {
  const paid = await paymentOf(deps, charge);
  if (!paid) return undefined;
  return { provider: 'stripe' as const, eventId: event.id, ...paid, chargedNanos: cents(charge.amount) };
}

/** Won (or an inquiry closed, or prevented: no money left) gives back; lost keeps; anything else is still open. */
function disputeStatus(status: Stripe.Dispute.Status): DisputeStatus {
  if (status === 'won' || status === 'warning_closed' || status === 'prevented') return 'won';
  return status === 'lost' ? 'lost' : 'open';
}

const notCreditedYet = () =>
  new AppError('ServiceUnavailable', 'The payment this charge is of is not credited yet; deliver the event again later.', { retryAfter: 60 });

/**
 * The payment a charge is of: a top-up's or an auto top-up's. The charge and its payment intent
 * name no organisation, so the payment intent's is read from payment_objects (recorded with the
 * intent when the top-up was paid or the auto top-up charge sent), then the payment is found by
 * (organization_id, payment_intent_id). For one not recorded there, Stripe is asked: a top-up paid
 * before intents were recorded is found by its checkout session, which names its organisation
 * (metadata), and only a session of ours under it counts; the intent is then recorded on it and in
 * payment_objects, in one transaction. An auto top-up charge whose intent is not recorded yet (its
 * instance stopped before it could) is named by the intent's metadata. A charge in another currency
 * was not ours. A payment of ours not yet credited (its success still being delivered) is answered
 * 503, so Stripe delivers the refund again after it.
 */
async function paymentOf(deps: Deps, charge: Stripe.Charge): Promise<{ organizationId: string; payment: CreditedPayment } | undefined> {
  const paymentIntentId = idOf(charge.payment_intent);
  if (!paymentIntentId || charge.currency !== 'usd') return undefined;
  const organizationId = await organizationOfPayment(deps.db, 'stripe', paymentIntentId);
  const recorded = organizationId && (await recordedPaymentOf(deps.db, organizationId, paymentIntentId));
  if (recorded) return recorded;
  const legacy = await legacyTopUpOf(deps, paymentIntentId);
  if (legacy) return legacy;
  await refuseUncreditedAutoTopUp(deps, paymentIntentId);
  return undefined;
}

async function recordedPaymentOf(db: Database, organizationId: string, paymentIntentId: string) {
  const [topUp] = await db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(
      and(eq(checkoutSessions.organizationId, organizationId), eq(checkoutSessions.paymentIntentId, paymentIntentId), eq(checkoutSessions.provider, 'stripe')),
    );
  if (topUp) return { organizationId, payment: { kind: 'top_up' as const, checkoutSessionId: topUp.id } };
  const [autoTopUp] = await db
    .select({ id: autoTopUpCharges.id, status: autoTopUpCharges.status })
    .from(autoTopUpCharges)
    .where(
      and(eq(autoTopUpCharges.organizationId, organizationId), eq(autoTopUpCharges.paymentIntentId, paymentIntentId), eq(autoTopUpCharges.provider, 'stripe')),
    );
  if (!autoTopUp) return undefined;
  if (autoTopUp.status !== 'succeeded') throw notCreditedYet();
  return { organizationId, payment: { kind: 'auto_top_up' as const, autoTopUpChargeId: autoTopUp.id } };
}

async function legacyTopUpOf({ db, stripe }: Deps, paymentIntentId: string) {
  const sessions = await callStripe('find the checkout session of a payment', () =>
    stripe.checkout.sessions.list({ payment_intent: paymentIntentId, limit: 1 }),
  );
  const listed = sessions.data[0];
  const listedOrganization = listed && ourIdOf(listed.metadata?.organizationId ?? listed.client_reference_id);
  const ours = listed && listedOrganization && (await findCheckout(db, { organizationId: listedOrganization, id: listed.id }));
  if (!ours || ours.provider !== 'stripe') return undefined;
  if (ours.status !== 'SUCCEEDED') throw notCreditedYet();
  await db.transaction(async (tx) => {
    const [recorded] = await tx
      .update(checkoutSessions)
      .set({ paymentIntentId })
      .where(and(eq(checkoutSessions.organizationId, ours.organizationId), eq(checkoutSessions.id, ours.id), isNull(checkoutSessions.paymentIntentId)))
      .returning({ id: checkoutSessions.id });
    if (recorded) await recordPaymentObject(tx, { provider: 'stripe', id: paymentIntentId, organizationId: ours.organizationId });
  });
  return { organizationId: ours.organizationId, payment: { kind: 'top_up' as const, checkoutSessionId: ours.id } };
}

/** An auto top-up charge is credited only with its intent recorded (markChargeSucceeded), so one named but not recorded is not credited yet. */
async function refuseUncreditedAutoTopUp({ db, stripe }: Deps, paymentIntentId: string): Promise<void> {
  const intent = await callStripe('read the payment intent', () => stripe.paymentIntents.retrieve(paymentIntentId));
  const chargeId = ourIdOf(intent.metadata?.auto_top_up_charge_id);
  const organizationId = ourIdOf(intent.metadata?.organization_id);
  if (!chargeId || !organizationId) return;
  const [charge] = await db.select({ id: autoTopUpCharges.id }).from(autoTopUpCharges).where(chargeByKey({ organizationId, chargeId }));
  if (charge) throw notCreditedYet();
}

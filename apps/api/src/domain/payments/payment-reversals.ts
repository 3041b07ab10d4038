import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { type DisputeStatus, paymentDisputes, paymentEvents } from '../../db/schema/index.js';
import { type Actor, systemActor } from '../audit/record-audit.js';
import { turnOffAutoTopUp } from '../auto-top-up/charges.js';
import { postEntry, takeBack } from '../credit/ledger.js';
import { dollarsText, recordCreditAudit } from '../credit/record-credit-audit.js';
import { nanosToDecimalDollars } from '../money.js';
import {
  type CreditedPayment,
  disputedPaymentColumns,
  disputesOfPayment,
  findPaidPayment,
  type PaymentKey,
  paymentAuditDetails,
  paymentName,
  saveRefunded,
} from './credited-payments.js';

/**
 * A provider's notice that a payment which credited the ledger (a checkout top-up or an auto
 * top-up charge) was refunded or disputed, as both providers report it (Stripe's charge events,
 * re-read from Stripe; the sandbox portal's buttons). Amounts are of the charge (credit and tax),
 * in nano-dollars.
 */
export type ChargeNotice = {
  provider: 'stripe' | 'sandbox';
  eventId: string;
  /** The payment's organisation (Stripe's found through payment_objects) and the payment. */
  organizationId: string;
  payment: CreditedPayment;
  /** What the provider charged for the payment. */
  chargedNanos: bigint;
} & (
  | { type: 'charge.refunded'; /** Cumulative, as Stripe's `amount_refunded`. */ refundedNanos: bigint }
  | { type: 'charge.dispute.created' | 'charge.dispute.closed'; disputeId: string; disputedNanos: bigint; status: DisputeStatus }
);

export type NoticeOutcome = 'handled' | 'duplicate' | 'ignored';

type Reversals = { creditNanos: bigint; chargedNanos: bigint; refundedNanos: bigint; disputes: { amountNanos: bigint; status: DisputeStatus }[] };

/**
 * The credit a payment's refunds and disputes take back: its share of what was refunded plus what
 * open or lost disputes hold, never more than the payment's credit in total (a dispute over an
 * amount already refunded takes nothing more). The tax's share is not credit, so it is not taken.
 */
export function creditTakenBack({ creditNanos, chargedNanos, refundedNanos, disputes }: Reversals): bigint {
  const disputed = disputes.filter((dispute) => dispute.status !== 'won').reduce((sum, dispute) => sum + dispute.amountNanos, 0n);
  const reversed = refundedNanos + disputed;
  if (chargedNanos <= 0n || reversed >= chargedNanos) return reversed > 0n ? creditNanos : 0n;
  return (creditNanos * reversed) / chargedNanos;
}

/** A dispute only moves forward: open, then lost or won; lost may still be won on appeal. */
const rank: Record<DisputeStatus, number> = { open: 0, lost: 1, won: 2 };
const storedRank = sql`(case ${paymentDisputes.status} when 'open' then 0 when 'lost' then 1 else 2 end)`;

/**
 * Applies a notice to the ledger, once per event id. What the payment's refunds and disputes take
 * back is worked out from the provider's facts before and after the notice (the cumulative refund
 * only grows; a dispute is recorded once by its id and its status only moves forward), and the
 * difference is posted: taken back (what the credit cannot pay becomes owed) or given back (paying
 * any debt first). So a repeated, partial or out-of-order notice never counts anything twice. A
 * notice for a payment that is not a paid one of ours changes nothing. What moves the ledger is
 * recorded in the audit log, in the same transaction, as `actor`'s: the system's for a provider's
 * event, the person's who pressed a sandbox button. Credit taken back from an
 * auto top-up charge turns auto top-up off, so the card is not charged again by itself.
 */
export async function applyChargeNotice(db: Database, notice: ChargeNotice, now: Date, actor: Actor = systemActor): Promise<NoticeOutcome> {
  const key: PaymentKey = { organizationId: notice.organizationId, provider: notice.provider, payment: notice.payment };
  const { organizationId, payment } = key;
  return db.transaction(async (tx) => {
    const paid = await findPaidPayment(tx, key, true);
    if (!paid) return 'ignored';
    const [fresh] = await tx
      .insert(paymentEvents)
      .values({ provider: notice.provider, id: notice.eventId, type: notice.type })
      .onConflictDoNothing()
      .returning({ id: paymentEvents.id });
    if (!fresh) return 'duplicate';

    const disputesOf = () =>
      tx
        .select({ amountNanos: paymentDisputes.amountNanos, status: paymentDisputes.status })
        .from(paymentDisputes)
        .where(disputesOfPayment(organizationId, payment));
    const chargedNanos = paid.chargedNanos ?? notice.chargedNanos;
    const before = creditTakenBack({ ...paid, chargedNanos, disputes: await disputesOf() });

    let refundedNanos = paid.refundedNanos;
    if (notice.type === 'charge.refunded') {
      if (notice.refundedNanos > refundedNanos) refundedNanos = notice.refundedNanos;
    } else {
      await tx
        .insert(paymentDisputes)
        .values({
          organizationId,
          provider: notice.provider,
          id: notice.disputeId,
          ...disputedPaymentColumns(payment),
          amountNanos: notice.disputedNanos,
          status: notice.status,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoUpdate({
          // A dispute's organisation is its payment's, so every notice of it finds this row (migration 0022).
          target: [paymentDisputes.organizationId, paymentDisputes.provider, paymentDisputes.id],
          set: { status: notice.status, updatedAt: now },
          where: sql`${storedRank} < ${rank[notice.status]} and ${disputesOfPayment(organizationId, payment)}`,
        });
    }
    await saveRefunded(tx, key, { chargedNanos, refundedNanos, now });
    const after = creditTakenBack({ ...paid, chargedNanos, refundedNanos, disputes: await disputesOf() });

    const reference = `${notice.provider}:${notice.eventId}`;
    const refund = notice.type === 'charge.refunded';
    const audit = { organizationId, actor, action: refund ? ('credit.refunded' as const) : ('credit.disputed' as const) };
    const details = { ...paymentAuditDetails(payment), ...(refund ? {} : { dispute: notice.status }) };
    if (after > before) {
      const kind = refund ? 'refund' : 'dispute';
      const amountNanos = after - before;
      const posted = await takeBack(tx, { organizationId, kind, amountNanos, reference, reason: `${kind} of ${paymentName(payment)}` });
      if (posted.posted) await recordCreditAudit(tx, { ...audit, amountNanos, posted, details });
      if (payment.kind === 'auto_top_up') {
        // The card's holder (or whoever refunded it) did not want this charge: it is not charged again by itself.
        const reason = `An auto top-up charge of ${dollarsText(paid.creditNanos)} was ${refund ? 'refunded' : 'disputed'}`;
        await turnOffAutoTopUp(tx, { organizationId, reason, target: dollarsText(amountNanos), now });
      }
    } else if (after < before) {
      const amountNanos = before - after;
      const posted = await postEntry(tx, {
        organizationId,
        kind: 'dispute_won',
        amountNanos,
        reference,
        reason: `dispute of ${paymentName(payment)} won: $${nanosToDecimalDollars(amountNanos)} given back`,
      });
      if (posted.posted) await recordCreditAudit(tx, { ...audit, amountNanos, posted, details });
    }
    return 'handled';
  });
}

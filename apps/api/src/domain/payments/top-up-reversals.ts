import type { Database } from '@meterway/db';
import { and, eq, sql } from 'drizzle-orm';
import { checkoutSessions, type DisputeStatus, paymentDisputes, paymentEvents } from '../../db/schema/index.js';
import { systemActor } from '../audit/record-audit.js';
import { postEntry, takeBack } from '../credit/ledger.js';
import { recordCreditAudit } from '../credit/record-credit-audit.js';
import { nanosToDecimalDollars } from '../money.js';

/**
 * A provider's notice that a top-up's payment was refunded or disputed, as both providers report
 * it (Stripe's charge events, re-read from Stripe; the sandbox portal's buttons). Amounts are of
 * the charge (credit and tax), in nano-dollars.
 */
export type ChargeNotice = {
  provider: 'stripe' | 'sandbox';
  eventId: string;
  /** The top-up's organisation (Stripe's found through payment_objects) and id. */
  organizationId: string;
  checkoutSessionId: string;
  /** What the provider charged for the top-up. */
  chargedNanos: bigint;
} & (
  | { type: 'charge.refunded'; /** Cumulative, as Stripe's `amount_refunded`. */ refundedNanos: bigint }
  | { type: 'charge.dispute.created' | 'charge.dispute.closed'; disputeId: string; disputedNanos: bigint; status: DisputeStatus }
);

export type NoticeOutcome = 'handled' | 'duplicate' | 'ignored';

type Reversals = { creditNanos: bigint; chargedNanos: bigint; refundedNanos: bigint; disputes: { amountNanos: bigint; status: DisputeStatus }[] };

/**
 * The credit a top-up's refunds and disputes take back: its share of what was refunded plus what
 * open or lost disputes hold, never more than the top-up's credit in total (a dispute over an
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
 * Applies a notice to the ledger, once per event id. What the top-up's refunds and disputes take
 * back is worked out from the provider's facts before and after the notice (the cumulative refund
 * only grows; a dispute is recorded once by its id and its status only moves forward), and the
 * difference is posted: taken back (what the credit cannot pay becomes owed) or given back (paying
 * any debt first). So a repeated, partial or out-of-order notice never counts anything twice. A
 * notice for a top-up that is not a paid one of ours changes nothing. What moves the ledger is
 * recorded in the audit log as the system's, in the same transaction.
 */
export async function applyChargeNotice(db: Database, notice: ChargeNotice, now: Date): Promise<NoticeOutcome> {
  return db.transaction(async (tx) => {
    // The top-up's row, locked: notices of one top-up apply one after another.
    const [session] = await tx
      .select()
      .from(checkoutSessions)
      .where(
        and(
          eq(checkoutSessions.organizationId, notice.organizationId),
          eq(checkoutSessions.id, notice.checkoutSessionId),
          eq(checkoutSessions.provider, notice.provider),
          eq(checkoutSessions.status, 'SUCCEEDED'),
        ),
      )
      .for('update');
    if (!session) return 'ignored';
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
        .where(and(eq(paymentDisputes.organizationId, session.organizationId), eq(paymentDisputes.checkoutSessionId, session.id)));
    const chargedNanos = session.chargedNanos ?? notice.chargedNanos;
    const before = creditTakenBack({ ...session, chargedNanos, disputes: await disputesOf() });

    let refundedNanos = session.refundedNanos;
    if (notice.type === 'charge.refunded') {
      if (notice.refundedNanos > refundedNanos) refundedNanos = notice.refundedNanos;
    } else {
      await tx
        .insert(paymentDisputes)
        .values({
          organizationId: session.organizationId,
          provider: notice.provider,
          id: notice.disputeId,
          checkoutSessionId: session.id,
          amountNanos: notice.disputedNanos,
          status: notice.status,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoUpdate({
          // A dispute's organisation is its top-up's, so every notice of it finds this row (migration 0022).
          target: [paymentDisputes.organizationId, paymentDisputes.provider, paymentDisputes.id],
          set: { status: notice.status, updatedAt: now },
          where: sql`${storedRank} < ${rank[notice.status]} and ${paymentDisputes.checkoutSessionId} = ${session.id}`,
        });
    }
    await tx
      .update(checkoutSessions)
      .set({ chargedNanos, refundedNanos, updatedAt: now })
      .where(and(eq(checkoutSessions.organizationId, session.organizationId), eq(checkoutSessions.id, session.id)));
    const after = creditTakenBack({ ...session, chargedNanos, refundedNanos, disputes: await disputesOf() });

    const reference = `${notice.provider}:${notice.eventId}`;
    const refund = notice.type === 'charge.refunded';
    const audit = { organizationId: session.organizationId, actor: systemActor, action: refund ? ('credit.refunded' as const) : ('credit.disputed' as const) };
    const details = { checkoutSessionId: session.id, ...(refund ? {} : { dispute: notice.status }) };
    if (after > before) {
      const kind = refund ? 'refund' : 'dispute';
      const amountNanos = after - before;
      const posted = await takeBack(tx, { organizationId: session.organizationId, kind, amountNanos, reference, reason: `${kind} of top-up ${session.id}` });
      if (posted.posted) await recordCreditAudit(tx, { ...audit, amountNanos, posted, details });
    } else if (after < before) {
      const amountNanos = before - after;
      const posted = await postEntry(tx, {
        organizationId: session.organizationId,
        kind: 'dispute_won',
        amountNanos,
        reference,
        reason: `dispute of top-up ${session.id} won: $${nanosToDecimalDollars(amountNanos)} given back`,
      });
      if (posted.posted) await recordCreditAudit(tx, { ...audit, amountNanos, posted, details });
    }
    return 'handled';
  });
}

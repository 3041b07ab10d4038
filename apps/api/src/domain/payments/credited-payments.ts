import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import { autoTopUpCharges, checkoutSessions, paymentDisputes } from '../../db/schema/index.js';

/** A payment that credited the ledger: a checkout top-up (its session) or an auto top-up charge of the saved card. */
export type CreditedPayment = { kind: 'top_up'; checkoutSessionId: string } | { kind: 'auto_top_up'; autoTopUpChargeId: string };

export type PaymentKey = { organizationId: string; provider: 'stripe' | 'sandbox'; payment: CreditedPayment };

/**
 * What a refund or dispute of a payment is weighed against: the credit it gave and the tax on it
 * (an auto top-up has none), what the provider charged for it (credit and tax, as the provider
 * says: a checkout top-up's is known from its first refund or dispute) and the provider's
 * cumulative refund.
 */
export type PaymentAmounts = { creditNanos: bigint; taxNanos: bigint; chargedNanos: bigint | null; refundedNanos: bigint };

/**
 * The payment's amounts, if it is a paid one of this organisation and provider; `lock` locks its
 * row, so the notices of one payment apply one after another.
 */
export async function findPaidPayment(db: Database, { organizationId, provider, payment }: PaymentKey, lock = false): Promise<PaymentAmounts | undefined> {
  if (payment.kind === 'top_up') {
    const query = db
      .select({
        creditNanos: checkoutSessions.creditNanos,
        taxNanos: checkoutSessions.taxNanos,
        chargedNanos: checkoutSessions.chargedNanos,
        refundedNanos: checkoutSessions.refundedNanos,
      })
      .from(checkoutSessions)
      .where(
        and(
          eq(checkoutSessions.organizationId, organizationId),
          eq(checkoutSessions.id, payment.checkoutSessionId),
          eq(checkoutSessions.provider, provider),
          eq(checkoutSessions.mode, 'payment'),
          eq(checkoutSessions.status, 'SUCCEEDED'),
        ),
      );
    const [found] = lock ? await query.for('update') : await query;
    return found;
  }
  const query = db
    .select({ amountNanos: autoTopUpCharges.amountNanos, refundedNanos: autoTopUpCharges.refundedNanos })
    .from(autoTopUpCharges)
    .where(
      and(
        eq(autoTopUpCharges.organizationId, organizationId),
        eq(autoTopUpCharges.id, payment.autoTopUpChargeId),
        eq(autoTopUpCharges.provider, provider),
        eq(autoTopUpCharges.status, 'succeeded'),
      ),
    );
  const [found] = lock ? await query.for('update') : await query;
  return found && { creditNanos: found.amountNanos, taxNanos: 0n, chargedNanos: found.amountNanos, refundedNanos: found.refundedNanos };
}

/** Keeps what the provider charged and its cumulative refund on the payment's row. */
export async function saveRefunded(tx: Database, { organizationId, payment }: PaymentKey, amounts: { chargedNanos: bigint; refundedNanos: bigint; now: Date }) {
  if (payment.kind === 'top_up') {
    await tx
      .update(checkoutSessions)
      .set({ chargedNanos: amounts.chargedNanos, refundedNanos: amounts.refundedNanos, updatedAt: amounts.now })
      .where(and(eq(checkoutSessions.organizationId, organizationId), eq(checkoutSessions.id, payment.checkoutSessionId)));
  } else {
    await tx
      .update(autoTopUpCharges)
      .set({ refundedNanos: amounts.refundedNanos, updatedAt: amounts.now })
      .where(and(eq(autoTopUpCharges.organizationId, organizationId), eq(autoTopUpCharges.id, payment.autoTopUpChargeId)));
  }
}

/** The payment a dispute row is of, as its columns. */
export const disputedPaymentColumns = (payment: CreditedPayment) =>
  payment.kind === 'top_up'
    ? { checkoutSessionId: payment.checkoutSessionId, autoTopUpChargeId: null }
    : { checkoutSessionId: null, autoTopUpChargeId: payment.autoTopUpChargeId };

/** The disputes of one payment. */
export const disputesOfPayment = (organizationId: string, payment: CreditedPayment) =>
  and(
    eq(paymentDisputes.organizationId, organizationId),
    payment.kind === 'top_up'
      ? eq(paymentDisputes.checkoutSessionId, payment.checkoutSessionId)
      : eq(paymentDisputes.autoTopUpChargeId, payment.autoTopUpChargeId),
  );

/** How the ledger and the audit log name the payment. */
export const paymentName = (payment: CreditedPayment) =>
  payment.kind === 'top_up' ? `top-up ${payment.checkoutSessionId}` : `auto top-up ${payment.autoTopUpChargeId}`;

export const paymentAuditDetails = (payment: CreditedPayment) =>
  payment.kind === 'top_up' ? { checkoutSessionId: payment.checkoutSessionId } : { autoTopUpChargeId: payment.autoTopUpChargeId };

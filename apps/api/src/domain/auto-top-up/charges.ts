import type { Database } from '@meterway/db';
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { autoTopUpCharges, autoTopUps, creditBalances } from '../../db/schema/index.js';
import { recordAudit, systemActor } from '../audit/record-audit.js';
import { postEntry } from '../credit/ledger.js';
import { dollarsText, recordCreditAudit } from '../credit/record-credit-audit.js';
import { nanosToDollars } from '../money.js';
import { recordPaymentObject } from '../payments/payment-objects.js';
import { emitEvent } from '../webhooks/emit-event.js';

/** An auto top-up charge is named by its organisation and its id (the table's key, migration 0025). */
export type ChargeKey = { organizationId: string; chargeId: string };

export const chargeByKey = (key: ChargeKey) => and(eq(autoTopUpCharges.organizationId, key.organizationId), eq(autoTopUpCharges.id, key.chargeId));

/** Keeps a payment id already known (one charge per payment: the unique index within the organisation, payment_objects across them). */
const paymentIntentOf = (paymentIntentId: string | undefined) =>
  paymentIntentId === undefined ? {} : { paymentIntentId: sql`coalesce(${autoTopUpCharges.paymentIntentId}, ${paymentIntentId})` };

/** Records the charge's payment (now set on the row) in payment_objects, in the transaction that set it. */
export async function recordChargePayment(tx: Database, charge: typeof autoTopUpCharges.$inferSelect): Promise<void> {
  if (charge.paymentIntentId) await recordPaymentObject(tx, { provider: charge.provider, id: charge.paymentIntentId, organizationId: charge.organizationId });
}

/**
 * The provider took the money: the charge becomes succeeded and the organisation is credited once
 * (an `auto_top_up` entry referencing the charge). Like a checkout's success, this wins over an
 * earlier failure, whatever order the provider's notifications arrive in; auto top-up stays as the
 * failure left it (off, with its reason) until someone turns it on. `receiptUrl` is the provider's
 * receipt of the payment, where it gives one. False when already succeeded.
 */
export async function markChargeSucceeded(db: Database, input: ChargeKey & { paymentIntentId?: string; receiptUrl?: string; now: Date }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [charge] = await tx
      .update(autoTopUpCharges)
      .set({
        status: 'succeeded',
        failureMessage: null,
        updatedAt: input.now,
        ...paymentIntentOf(input.paymentIntentId),
        ...(input.receiptUrl === undefined ? {} : { receiptUrl: input.receiptUrl }),
      })
      .where(and(chargeByKey(input), ne(autoTopUpCharges.status, 'succeeded')))
      .returning();
    if (!charge) return false;
    await recordChargePayment(tx, charge);
    const posted = await postEntry(tx, { organizationId: charge.organizationId, kind: 'auto_top_up', amountNanos: charge.amountNanos, reference: charge.id });
    if (posted.posted) {
      await recordCreditAudit(tx, {
        organizationId: charge.organizationId,
        actor: systemActor,
        action: 'credit.added',
        amountNanos: charge.amountNanos,
        posted,
        details: { autoTopUpChargeId: charge.id },
      });
    }
    return true;
  });
}

/**
 * The provider refused the charge (declined, or the card needs its holder to authenticate): only
 * an open charge fails, so nothing undoes a success. Auto top-up turns off with the provider's
 * message as its reason and is disarmed, so no further charge is claimed until someone turns it on
 * again; the failure is mailed later (failure_mailed_at).
 */
export async function markChargeFailed(db: Database, input: ChargeKey & { paymentIntentId?: string; message: string; now: Date }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [charge] = await tx
      .update(autoTopUpCharges)
      .set({ status: 'failed', failureMessage: input.message, updatedAt: input.now, ...paymentIntentOf(input.paymentIntentId) })
      .where(and(chargeByKey(input), inArray(autoTopUpCharges.status, ['pending', 'processing'])))
      .returning();
    if (!charge) return false;
    await recordChargePayment(tx, charge);
    await emitEvent(tx, {
      organizationId: charge.organizationId,
      type: 'auto_top_up.failed',
      data: { chargeId: charge.id, reason: input.message, amount: nanosToDollars(charge.amountNanos) },
    });
    await turnOffAutoTopUp(tx, { organizationId: charge.organizationId, reason: input.message, target: dollarsText(charge.amountNanos), now: input.now });
    return true;
  });
}

/**
 * Auto top-up turns itself off, with the reason people are shown, so the card is not charged again
 * until someone turns it on: after a declined charge, or a refund or dispute of one. The audit log
 * records it as the system's when it was on. The balance row is locked before the settings row, in
 * the order the settings' save takes them.
 */
export async function turnOffAutoTopUp(tx: Database, input: { organizationId: string; reason: string; target: string; now: Date }) {
  await tx.update(creditBalances).set({ autoTopUpBelowNanos: null, updatedAt: input.now }).where(eq(creditBalances.organizationId, input.organizationId));
  const [turnedOff] = await tx
    .update(autoTopUps)
    .set({ enabled: false, disabledReason: input.reason, updatedAt: input.now })
    .where(and(eq(autoTopUps.organizationId, input.organizationId), eq(autoTopUps.enabled, true)))
    .returning({ organizationId: autoTopUps.organizationId });
  if (turnedOff) {
    await recordAudit(tx, {
      organizationId: input.organizationId,
      actor: systemActor,
      action: 'auto_top_up.disabled',
      target: input.target,
      changes: { enabled: { from: true, to: false }, reason: { to: input.reason } },
    });
  }
}

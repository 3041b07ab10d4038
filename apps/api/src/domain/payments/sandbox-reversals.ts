import { randomBytes } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import { memberships, paymentDisputes, persons } from '../../db/schema/index.js';
import { type Actor, systemActor } from '../audit/record-audit.js';
import { AppError } from '../../errors/app-error.js';
import { dollarsToNanos } from '../money.js';
import { type CreditedPayment, disputesOfPayment, findPaidPayment } from './credited-payments.js';
import { applyChargeNotice, type ChargeNotice } from './payment-reversals.js';

export type SandboxReversal = { action: 'refund'; amount?: number } | { action: 'dispute' } | { action: 'win' | 'lose' };

const sandboxId = (prefix: string) => `${prefix}_sandbox_${randomBytes(18).toString('base64url').replace(/[-_]/g, 'x')}`;

/**
 * The sandbox's customer portal plays the card network: a paid top-up or auto top-up charge of the
 * organisation is refunded (`amount` dollars of what was charged, credit and tax; all that is left
 * by default) or disputed (all that was not refunded), and an open dispute is won or lost. Each
 * becomes the notice Stripe's charge.refunded, charge.dispute.created or charge.dispute.closed
 * would, applied by the same code (payment-reversals.ts).
 */
export async function reverseSandboxPayment(
  db: Database,
  input: { organizationId: string; personId?: string | undefined; payment: CreditedPayment; now: Date } & SandboxReversal,
) {
  const { organizationId, payment } = input;
  const paid = await findPaidPayment(db, { organizationId, provider: 'sandbox', payment });
  if (!paid) throw new AppError('NotFound', payment.kind === 'top_up' ? 'Unknown top-up.' : 'Unknown auto top-up.');
  const chargedNanos = paid.chargedNanos ?? paid.creditNanos + paid.taxNanos;
  const left = chargedNanos - paid.refundedNanos;
  const base = { provider: 'sandbox' as const, eventId: sandboxId('evt'), organizationId, payment, chargedNanos };
  const [open] = await db
    .select()
    .from(paymentDisputes)
    .where(and(disputesOfPayment(organizationId, payment), eq(paymentDisputes.status, 'open')));

  let notice: ChargeNotice;
  if (input.action === 'refund') {
    const amountNanos = input.amount === undefined ? left : dollarsToNanos(input.amount);
    if (left <= 0n) throw new AppError('Conflict', 'This payment is refunded in full already.');
    if (amountNanos <= 0n || amountNanos > left) throw new AppError('BadRequest', 'A refund is more than $0 and at most what is left of the payment.');
    notice = { ...base, type: 'charge.refunded', refundedNanos: paid.refundedNanos + amountNanos };
  } else if (input.action === 'dispute') {
    if (open) throw new AppError('Conflict', 'This payment has an open dispute already.');
    if (left <= 0n) throw new AppError('Conflict', 'This payment is refunded in full: there is nothing to dispute.');
    notice = { ...base, type: 'charge.dispute.created', disputeId: sandboxId('dp'), disputedNanos: left, status: 'open' };
  } else {
    if (!open) throw new AppError('Conflict', 'This payment has no open dispute.');
    notice = { ...base, type: 'charge.dispute.closed', disputeId: open.id, disputedNanos: open.amountNanos, status: input.action === 'win' ? 'won' : 'lost' };
  }
  await applyChargeNotice(db, notice, input.now, await pressedBy(db, input));
}

/** Who pressed the button: the person the Invoices link was made for, while still in the organisation; else the system. */
async function pressedBy(db: Database, input: { organizationId: string; personId?: string | undefined }): Promise<Actor> {
  if (!input.personId) return systemActor;
  const [person] = await db
    .select({ email: persons.email })
    .from(persons)
    .innerJoin(memberships, and(eq(memberships.personId, persons.id), eq(memberships.organizationId, input.organizationId)))
    .where(eq(persons.id, input.personId));
  return person ? { personId: input.personId, email: person.email } : systemActor;
}

import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { paymentObjects } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';

type PaymentObject = { provider: 'stripe' | 'sandbox'; id: string; organizationId: string };

/**
 * Records which organisation a payment intent is, in the transaction that records it on a top-up
 * or an auto top-up charge (migration 0025). Recording it again for the same organisation changes
 * nothing; for another organisation it throws a conflict (409: whoever sent it, a webhook or a
 * return from checkout, is told so, not answered 500), rolling the caller back, as the payment
 * intent's unique index did when it was global: a payment is only ever one organisation's.
 */
export async function recordPaymentObject(tx: Database, object: PaymentObject): Promise<void> {
  await tx.insert(paymentObjects).values(object).onConflictDoNothing();
  const owner = await organizationOfPayment(tx, object.provider, object.id);
  if (owner !== object.organizationId) {
    throw new AppError('Conflict', `Payment ${object.provider}:${object.id} is recorded for another organisation; it is not recorded for this one.`);
  }
}

/** The organisation a payment intent was recorded for, if any. */
export async function organizationOfPayment(db: Database, provider: PaymentObject['provider'], id: string): Promise<string | undefined> {
  const [row] = await db
    .select({ organizationId: paymentObjects.organizationId })
    .from(paymentObjects)
    .where(and(eq(paymentObjects.provider, provider), eq(paymentObjects.id, id)));
  return row?.organizationId;
}

/**
 * An id our rows are keyed by (an organisation's, an auto top-up charge's) as a provider's metadata
 * carries it: only a well-formed uuid is looked up (anything else is no one's).
 */
export const ourIdOf = (value: string | null | undefined): string | undefined => (z.uuid().safeParse(value).success ? (value ?? undefined) : undefined);

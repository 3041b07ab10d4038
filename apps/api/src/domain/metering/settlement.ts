import type { Database } from '@meterway/db';
import { and, eq, lt, sql } from 'drizzle-orm';
import { chatCompletions, creditBalances, keySpend, reservations } from '../../db/schema/index.js';
import { postEntry } from '../credit/ledger.js';
import type { Prices } from './admission.js';

type Reservation = typeof reservations.$inferSelect;

/** Gives a reservation back to the credit and the budget it held; false when it was already gone. */
async function releaseIn(tx: Database, reservationId: string): Promise<Reservation | undefined> {
  const [reservation] = await tx.delete(reservations).where(eq(reservations.id, reservationId)).returning();
  if (!reservation) return undefined;
  await tx
    .update(creditBalances)
    .set({ reservedNanos: sql`greatest(${creditBalances.reservedNanos} - ${reservation.amountNanos}, 0)` })
    .where(eq(creditBalances.organizationId, reservation.organizationId));
  await tx
    .update(keySpend)
    .set({ reservedNanos: sql`greatest(${keySpend.reservedNanos} - ${reservation.amountNanos}, 0)` })
    .where(and(eq(keySpend.publishableKeyId, reservation.publishableKeyId), eq(keySpend.periodStart, reservation.periodStart)));
  return reservation;
}

/** An upstream failure: everything reserved goes back, nothing is charged. */
export async function release(db: Database, reservationId: string): Promise<void> {
  await db.transaction((tx) => releaseIn(tx, reservationId));
}

export type Metered = {
  reservationId: string;
  completionId: string;
  model: string;
  estimatedInputTokens: number;
  inputTokens: number;
  outputTokens: number;
  /** True when the provider reported no usage and the tokens are our own count. */
  usageEstimated: boolean;
  prices: Prices;
  now: Date;
};

/**
 * Settles a call in one transaction: the reservation is released, the actual cost is charged to
 * the credit (a ledger entry referencing the completion, so it is charged once) and to the key's
 * monthly spend, and the completion is recorded with its estimated and actual figures.
 */
export async function settle(db: Database, call: Metered): Promise<{ totalNanos: bigint } | undefined> {
  const estimatedInputCost = BigInt(call.estimatedInputTokens) * call.prices.inputNanosPerToken;
  const inputCost = BigInt(call.inputTokens) * call.prices.inputNanosPerToken;
  const outputCost = BigInt(call.outputTokens) * call.prices.outputNanosPerToken;
  const total = inputCost + outputCost;
  return db.transaction(async (tx) => {
    const reservation = await releaseIn(tx, call.reservationId);
    if (!reservation) return undefined;
    // Never more than the balance holds: a provider that overshoots max_tokens is charged to zero, not below.
    const [credit] = await tx.select({ balance: creditBalances.balanceNanos }).from(creditBalances).where(eq(creditBalances.organizationId, reservation.organizationId));
    const charge = credit && credit.balance < total ? credit.balance : total;
    if (charge > 0n) {
      await postEntry(tx, { organizationId: reservation.organizationId, kind: 'usage_charge', amountNanos: -charge, reference: call.completionId });
    }
    await tx
      .update(keySpend)
      .set({ spentNanos: sql`${keySpend.spentNanos} + ${total}` })
      .where(and(eq(keySpend.publishableKeyId, reservation.publishableKeyId), eq(keySpend.periodStart, reservation.periodStart)));
    await tx.insert(chatCompletions).values({
      id: call.completionId,
      organizationId: reservation.organizationId,
      publishableKeyId: reservation.publishableKeyId,
      createdAt: call.now,
      model: call.model,
      estimatedInputTokens: call.estimatedInputTokens,
      inputTokens: call.inputTokens,
      estimatedInputCostNanos: estimatedInputCost,
      inputCostNanos: inputCost,
      outputTokens: call.outputTokens,
      outputCostNanos: outputCost,
      totalCostNanos: total,
      usageEstimated: call.usageEstimated,
    });
    return { totalNanos: total };
  });
}

/** Reservations of crashed instances: released once expired. */
export async function releaseExpired(db: Database, now: Date): Promise<number> {
  const expired = await db.select({ id: reservations.id }).from(reservations).where(lt(reservations.expiresAt, now)).limit(500);
  for (const { id } of expired) await release(db, id);
  return expired.length;
}

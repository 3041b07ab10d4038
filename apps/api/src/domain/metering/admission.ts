import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, eq, sql } from 'drizzle-orm';
import { creditBalances, keySpend, reservations } from '../../db/schema/index.js';
import { periodStart } from '../money.js';
import type { GatewayKey } from './find-key.js';

export type Prices = { inputNanosPerToken: bigint; outputNanosPerToken: bigint };

/** Why a call is refused before it reaches the model: the organisation's credit or the key's budget. */
export class Refusal extends Error {
  constructor(readonly reason: 'credit' | 'budget') {
    super(reason === 'credit' ? 'insufficient credit' : 'key budget exhausted');
  }
}

export type Admission = { reservationId: string; maxTokens: number; reservedNanos: bigint; periodStart: string };

/** Reservations outlive the slowest upstream call; a crashed instance's are swept after this. */
export const reservationLifetimeMs = 10 * 60 * 1000;

async function available(db: Database, key: GatewayKey, period: string) {
  const [credit] = await db.select().from(creditBalances).where(eq(creditBalances.organizationId, key.organizationId));
  const [spend] = await db
    .select()
    .from(keySpend)
    .where(and(eq(keySpend.publishableKeyId, key.id), eq(keySpend.periodStart, period)));
  return {
    credit: credit ? credit.balanceNanos - credit.reservedNanos : 0n,
    budget: key.spendLimitNanos - (spend ? spend.spentNanos + spend.reservedNanos : 0n),
  };
}

/**
 * Admits a call: the worst case (estimated input + max_tokens output) is reserved against both the
 * organisation's credit and the key's monthly budget in one transaction whose conditional updates
 * cannot overspend, however many instances admit calls at once. `max_tokens` that is absent or
 * unaffordable is lowered to what both can pay; nothing affordable → Refusal.
 */
export async function admit(
  db: Database,
  input: { key: GatewayKey; prices: Prices; inputTokens: number; requestedMaxTokens: number | undefined; now: Date },
): Promise<Admission> {
  const period = periodStart(input.now);
  const inputCost = BigInt(input.inputTokens) * input.prices.inputNanosPerToken;
  for (let attempt = 0; attempt < 3; attempt++) {
    const { credit, budget } = await available(db, input.key, period);
    const binding: Refusal['reason'] = credit <= budget ? 'credit' : 'budget';
    const affordable = credit < budget ? credit : budget;
    const perToken = input.prices.outputNanosPerToken > 0n ? input.prices.outputNanosPerToken : 1n;
    const affordableTokens = affordable > inputCost ? (affordable - inputCost) / perToken : -1n;
    if (affordableTokens < 1n) throw new Refusal(binding);
    const maxTokens = Number(
      input.requestedMaxTokens !== undefined && BigInt(input.requestedMaxTokens) < affordableTokens ? BigInt(input.requestedMaxTokens) : affordableTokens > 1_000_000n ? 1_000_000n : affordableTokens,
    );
    const reservedNanos = inputCost + BigInt(maxTokens) * input.prices.outputNanosPerToken;
    const admitted = await reserve(db, input.key, period, reservedNanos, input.now);
    if (admitted) return { reservationId: admitted, maxTokens, reservedNanos, periodStart: period };
    // Another call took what we saw as free; look again with the new figures.
  }
  throw new Refusal('budget');
}

async function reserve(db: Database, key: GatewayKey, period: string, amount: bigint, now: Date): Promise<string | undefined> {
  const rolledBack = Symbol('rolled back');
  try {
    return await db.transaction(async (tx) => {
      const credited = await tx
        .update(creditBalances)
        .set({ reservedNanos: sql`${creditBalances.reservedNanos} + ${amount}` })
        .where(and(eq(creditBalances.organizationId, key.organizationId), sql`${creditBalances.balanceNanos} - ${creditBalances.reservedNanos} >= ${amount}`))
        .returning({ id: creditBalances.organizationId });
      if (credited.length === 0) throw rolledBack;
      await tx.insert(keySpend).values({ publishableKeyId: key.id, periodStart: period }).onConflictDoNothing();
      const budgeted = await tx
        .update(keySpend)
        .set({ reservedNanos: sql`${keySpend.reservedNanos} + ${amount}` })
        .where(
          and(
            eq(keySpend.publishableKeyId, key.id),
            eq(keySpend.periodStart, period),
            sql`${keySpend.spentNanos} + ${keySpend.reservedNanos} + ${amount} <= ${key.spendLimitNanos}`,
          ),
        )
        .returning({ id: keySpend.publishableKeyId });
      if (budgeted.length === 0) throw rolledBack;
      const id = randomUUID();
      await tx.insert(reservations).values({
        id,
        organizationId: key.organizationId,
        publishableKeyId: key.id,
        periodStart: period,
        amountNanos: amount,
        expiresAt: new Date(now.getTime() + reservationLifetimeMs),
      });
      return id;
    });
  } catch (error) {
    if (error === rolledBack) return undefined;
    throw error;
  }
}

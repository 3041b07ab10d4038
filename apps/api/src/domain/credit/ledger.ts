import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, eq, sql } from 'drizzle-orm';
import { type CreditEntryKind, creditBalances, creditEntries } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';

export type LedgerEntry = {
  organizationId: string;
  kind: CreditEntryKind;
  /** Signed nano-dollars: positive adds credit, negative spends it. */
  amountNanos: bigint;
  /** One entry per kind and reference (a checkout session credits once, a completion is charged once). */
  reference?: string;
  reason?: string;
};

export type Posted = { posted: true; entryId: string; balanceAfterNanos: bigint } | { posted: false };

/**
 * Posts one ledger entry and moves the balance by the same amount, in the caller's transaction,
 * so the balance always equals the ledger sum. An entry whose (kind, reference) was posted before
 * changes nothing. A debit that would take the balance below zero is refused and changes nothing.
 */
export async function postEntry(tx: Database, entry: LedgerEntry): Promise<Posted> {
  const entryId = randomUUID();
  const [inserted] = await tx
    .insert(creditEntries)
    .values({
      id: entryId,
      organizationId: entry.organizationId,
      kind: entry.kind,
      amountNanos: entry.amountNanos,
      balanceAfterNanos: 0n,
      reference: entry.reference ?? null,
      reason: entry.reason ?? null,
    })
    .onConflictDoNothing()
    .returning({ id: creditEntries.id });
  if (!inserted) return { posted: false };

  await tx.insert(creditBalances).values({ organizationId: entry.organizationId }).onConflictDoNothing();
  const [balance] = await tx
    .update(creditBalances)
    .set({ balanceNanos: sql`${creditBalances.balanceNanos} + ${entry.amountNanos}`, updatedAt: new Date() })
    .where(and(eq(creditBalances.organizationId, entry.organizationId), sql`${creditBalances.balanceNanos} + ${entry.amountNanos} >= 0`))
    .returning({ balanceNanos: creditBalances.balanceNanos });
  if (!balance) throw new AppError('Conflict', 'This would take the credit balance below zero.');
  await tx.update(creditEntries).set({ balanceAfterNanos: balance.balanceNanos }).where(eq(creditEntries.id, entryId));
  return { posted: true, entryId, balanceAfterNanos: balance.balanceNanos };
}

/**
 * An organisation's credit as people see it: the ledger balance. Holds are not spent money: those
 * an instance reserved ahead of a key's next calls would otherwise show as spent until they go
 * back, and an in-flight call's hold becomes its charge within moments.
 */
export async function balanceNanos(db: Database, organizationId: string): Promise<bigint> {
  const [row] = await db.select({ balance: creditBalances.balanceNanos }).from(creditBalances).where(eq(creditBalances.organizationId, organizationId));
  return row?.balance ?? 0n;
}

import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { eq } from 'drizzle-orm';
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

export type Posted =
  { posted: true; entryId: string; balanceBeforeNanos: bigint; owedBeforeNanos: bigint; balanceAfterNanos: bigint; owedAfterNanos: bigint } | { posted: false };

type Account = { balanceNanos: bigint; owedNanos: bigint };

/** The organisation's balance row, created if need be and locked until the transaction ends. */
async function lockAccount(tx: Database, organizationId: string): Promise<Account> {
  await tx.insert(creditBalances).values({ organizationId }).onConflictDoNothing();
  const [account] = await tx
    .select({ balanceNanos: creditBalances.balanceNanos, owedNanos: creditBalances.owedNanos })
    .from(creditBalances)
    .where(eq(creditBalances.organizationId, organizationId))
    .for('update');
  if (!account) throw new Error(`no credit balance row for organisation ${organizationId}`);
  return account;
}

/** Inserts one entry unless its (kind, reference) was posted before; false for such a duplicate. */
async function insertEntry(tx: Database, entry: LedgerEntry & { id: string; balanceAfterNanos: bigint; owedNanos: bigint }): Promise<boolean> {
  const [inserted] = await tx
    .insert(creditEntries)
    .values({ ...entry, reference: entry.reference ?? null, reason: entry.reason ?? null })
    .onConflictDoNothing()
    .returning({ id: creditEntries.id });
  return inserted !== undefined;
}

const before = (account: Account) => ({ balanceBeforeNanos: account.balanceNanos, owedBeforeNanos: account.owedNanos });

async function saveAccount(tx: Database, organizationId: string, account: Account) {
  await tx
    .update(creditBalances)
    .set({ ...account, updatedAt: new Date() })
    .where(eq(creditBalances.organizationId, organizationId));
}

/**
 * Posts one ledger entry and moves the balance by the same amount, in the caller's transaction,
 * so the balance always equals the ledger sum. An entry whose (kind, reference) was posted before
 * changes nothing. A debit that would take the balance below zero is refused and changes nothing.
 * Credit added while the organisation owes pays the debt first, by a second entry (owed_payment),
 * so an organisation that owes never has credit to spend.
 */
export async function postEntry(tx: Database, entry: LedgerEntry): Promise<Posted> {
  const account = await lockAccount(tx, entry.organizationId);
  const entryId = randomUUID();
  let balanceNanos = account.balanceNanos + entry.amountNanos;
  if (balanceNanos < 0n) throw new AppError('Conflict', 'This would take the credit balance below zero.');
  if (!(await insertEntry(tx, { ...entry, id: entryId, balanceAfterNanos: balanceNanos, owedNanos: 0n }))) return { posted: false };
  let owedNanos = account.owedNanos;
  if (entry.amountNanos > 0n && owedNanos > 0n) {
    const paid = balanceNanos < owedNanos ? balanceNanos : owedNanos;
    balanceNanos -= paid;
    owedNanos -= paid;
    await insertEntry(tx, {
      id: randomUUID(),
      organizationId: entry.organizationId,
      kind: 'owed_payment',
      amountNanos: -paid,
      owedNanos: -paid,
      balanceAfterNanos: balanceNanos,
      reference: entryId,
      reason: 'pays what a refund or dispute left owing',
    });
  }
  await saveAccount(tx, entry.organizationId, { balanceNanos, owedNanos });
  return { posted: true, entryId, ...before(account), balanceAfterNanos: balanceNanos, owedAfterNanos: owedNanos };
}

/**
 * Takes `amountNanos` (positive) back from the organisation's credit, in the caller's transaction:
 * as much as the balance holds, and the rest becomes owed. It takes the whole balance, holds of
 * calls in flight included: those calls then settle as unpaid (recorded on their rows), and an
 * organisation that owes is left with nothing its keys could be admitted against.
 */
export async function takeBack(tx: Database, entry: Omit<LedgerEntry, 'amountNanos'> & { amountNanos: bigint }): Promise<Posted> {
  if (entry.amountNanos <= 0n) throw new Error('a take-back is a positive amount');
  const account = await lockAccount(tx, entry.organizationId);
  const taken = account.balanceNanos < entry.amountNanos ? account.balanceNanos : entry.amountNanos;
  const owed = entry.amountNanos - taken;
  const entryId = randomUUID();
  const after = { balanceNanos: account.balanceNanos - taken, owedNanos: account.owedNanos + owed };
  if (!(await insertEntry(tx, { ...entry, id: entryId, amountNanos: -taken, owedNanos: owed, balanceAfterNanos: after.balanceNanos })))
    return { posted: false };
  await saveAccount(tx, entry.organizationId, after);
  return { posted: true, entryId, ...before(account), balanceAfterNanos: after.balanceNanos, owedAfterNanos: after.owedNanos };
}

/**
 * An organisation's credit as people see it: the ledger balance, and what it owes. Holds are not
 * spent money: those an instance reserved ahead of a key's next calls would otherwise show as
 * spent until they go back, and an in-flight call's hold becomes its charge within moments.
 */
export async function creditOf(db: Database, organizationId: string): Promise<Account> {
  const [row] = await db
    .select({ balanceNanos: creditBalances.balanceNanos, owedNanos: creditBalances.owedNanos })
    .from(creditBalances)
    .where(eq(creditBalances.organizationId, organizationId));
  return row ?? { balanceNanos: 0n, owedNanos: 0n };
}

export async function balanceNanos(db: Database, organizationId: string): Promise<bigint> {
  return (await creditOf(db, organizationId)).balanceNanos;
}

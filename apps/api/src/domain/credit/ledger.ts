import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { type CreditEntryKind, creditBalances, creditEntries, creditGrants } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { nanosToDollars } from '../money.js';
import { emitEvent } from '../webhooks/emit-event.js';

export type LedgerEntry = {
  organizationId: string;
  kind: CreditEntryKind;
  /** Signed nano-dollars: positive adds credit, negative spends it. */
  amountNanos: bigint;
  /** One entry per kind and reference (a checkout session credits once, a settled batch of calls is charged once). */
  reference?: string;
  reason?: string;
  /** A promotional grant's credit (its credit_grants row already inserted): it adds to the promotional part of the balance. */
  promotional?: boolean;
};

export type Posted =
  { posted: true; entryId: string; balanceBeforeNanos: bigint; owedBeforeNanos: bigint; balanceAfterNanos: bigint; owedAfterNanos: bigint } | { posted: false };

type Account = { balanceNanos: bigint; owedNanos: bigint };
type LockedAccount = Account & { promotionalNanos: bigint };

/** The organisation's balance row, created if need be and locked until the transaction ends. */
async function lockAccount(tx: Database, organizationId: string): Promise<LockedAccount> {
  await tx.insert(creditBalances).values({ organizationId }).onConflictDoNothing();
  const [account] = await tx
    .select({
      balanceNanos: creditBalances.balanceNanos,
      owedNanos: creditBalances.owedNanos,
      promotionalNanos: creditBalances.promotionalNanos,
    })
    .from(creditBalances)
    .where(eq(creditBalances.organizationId, organizationId))
    .for('update');
  if (!account) throw new Error(`no credit balance row for organisation ${organizationId}`);
  return account;
}

/** Inserts one entry unless its (kind, reference) was posted before; false for such a duplicate. */
async function insertEntry(
  tx: Database,
  { promotional: _, ...entry }: LedgerEntry & { id: string; balanceAfterNanos: bigint; owedNanos: bigint },
): Promise<boolean> {
  const [inserted] = await tx
    .insert(creditEntries)
    .values({ ...entry, reference: entry.reference ?? null, reason: entry.reason ?? null })
    .onConflictDoNothing()
    .returning({ id: creditEntries.id });
  return inserted !== undefined;
}

const before = (account: Account) => ({ balanceBeforeNanos: account.balanceNanos, owedBeforeNanos: account.owedNanos });

/**
 * Saves the balance and the debt, keeping the promotional part within the balance: a debit other
 * than usage (settle_calls draws grants first) takes paid credit first, so grants give only what the
 * balance no longer covers, soonest expiry first.
 */
async function saveAccount(tx: Database, organizationId: string, locked: LockedAccount, account: Account, added: { promotionalNanos: bigint }) {
  const promotionalBefore = locked.promotionalNanos + added.promotionalNanos;
  const promotionalNanos = account.balanceNanos < promotionalBefore ? account.balanceNanos : promotionalBefore;
  if (promotionalNanos < promotionalBefore) await tx.execute(sql`select app.draw_grants(${organizationId}, ${promotionalBefore - promotionalNanos})`);
  await tx
    .update(creditBalances)
    .set({ ...account, promotionalNanos, updatedAt: new Date() })
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
      reason: 'pays what was owed',
    });
  }
  await saveAccount(tx, entry.organizationId, account, { balanceNanos, owedNanos }, { promotionalNanos: entry.promotional ? entry.amountNanos : 0n });
  if (entry.amountNanos > 0n)
    await emitEvent(tx, {
      organizationId: entry.organizationId,
      type: 'credit.added',
      data: { entryId, kind: entry.kind, amount: nanosToDollars(entry.amountNanos), balanceAfterAmount: nanosToDollars(balanceNanos) },
    });
  return { posted: true, entryId, ...before(account), balanceAfterNanos: balanceNanos, owedAfterNanos: owedNanos };
}

/**
 * Takes `amountNanos` (positive) back from the organisation's credit, in the caller's transaction:
 * as much as the balance holds, and the rest becomes owed. It takes the whole balance, holds of
 * calls in flight included: what those calls cost is then owed when they settle (unpaid on their
 * rows, debt on their charge; settle-calls.sql), and an organisation that owes is left with nothing
 * its keys could be admitted against.
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
  await saveAccount(tx, entry.organizationId, account, after, { promotionalNanos: 0n });
  return { posted: true, entryId, ...before(account), balanceAfterNanos: after.balanceNanos, owedAfterNanos: after.owedNanos };
}

/**
 * Takes what is left of an expired grant out of the balance by a `grant_expiry` entry, in the
 * caller's transaction: all of it, whatever calls in flight hold (issue #52: expiry is a hard line).
 * Those calls were admitted against it, so when they settle, what they cost is charged to the paid
 * credit left or becomes owed (settle-calls.sql). Each entry's reference is the grant and the
 * remainder it took, so a sweep on another instance posts it only once.
 */
export async function expireGrant(tx: Database, grant: { id: string; organizationId: string }, now: Date): Promise<Posted> {
  const account = await lockAccount(tx, grant.organizationId);
  const [current] = await tx
    .select({ remainingNanos: creditGrants.remainingNanos, expiresAt: creditGrants.expiresAt })
    .from(creditGrants)
    .where(and(eq(creditGrants.organizationId, grant.organizationId), eq(creditGrants.id, grant.id)));
  if (!current || current.remainingNanos === 0n || current.expiresAt > now) return { posted: false };
  // A grant's remainder is part of the promotional credit, which is within the balance.
  const taken = current.remainingNanos;
  const entryId = randomUUID();
  const balanceNanos = account.balanceNanos - taken;
  const entry = {
    id: entryId,
    organizationId: grant.organizationId,
    kind: 'grant_expiry' as const,
    amountNanos: -taken,
    owedNanos: 0n,
    balanceAfterNanos: balanceNanos,
    reference: `${grant.id}:${current.remainingNanos}`,
  };
  if (!(await insertEntry(tx, entry))) return { posted: false };
  await tx
    .update(creditGrants)
    .set({ remainingNanos: 0n })
    .where(and(eq(creditGrants.organizationId, grant.organizationId), eq(creditGrants.id, grant.id)));
  await tx
    .update(creditBalances)
    .set({ balanceNanos, promotionalNanos: account.promotionalNanos - taken, updatedAt: now })
    .where(eq(creditBalances.organizationId, grant.organizationId));
  return { posted: true, entryId, ...before(account), balanceAfterNanos: balanceNanos, owedAfterNanos: account.owedNanos };
}

/**
 * An organisation's credit as people see it: the ledger balance, what it owes, and the part promotional grants gave. Holds are not
 * spent money: those an instance reserved ahead of a key's next calls would otherwise show as
 * spent until they go back, and an in-flight call's hold becomes its charge within moments.
 */
export async function creditOf(db: Database, organizationId: string): Promise<Account & { promotionalNanos: bigint }> {
  const [row] = await db
    .select({ balanceNanos: creditBalances.balanceNanos, owedNanos: creditBalances.owedNanos, promotionalNanos: creditBalances.promotionalNanos })
    .from(creditBalances)
    .where(eq(creditBalances.organizationId, organizationId));
  return row ?? { balanceNanos: 0n, owedNanos: 0n, promotionalNanos: 0n };
}

/** When the organisation's soonest grant with credit left expires, if it has one. */
export async function nextGrantExpiry(db: Database, organizationId: string): Promise<Date | undefined> {
  const [grant] = await db
    .select({ expiresAt: creditGrants.expiresAt })
    .from(creditGrants)
    .where(and(eq(creditGrants.organizationId, organizationId), gt(creditGrants.remainingNanos, 0n)))
    .orderBy(asc(creditGrants.expiresAt))
    .limit(1);
  return grant?.expiresAt;
}

export async function balanceNanos(db: Database, organizationId: string): Promise<bigint> {
  return (await creditOf(db, organizationId)).balanceNanos;
}

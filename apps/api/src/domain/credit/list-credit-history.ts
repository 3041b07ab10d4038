import type { CreditHistoryEntry, CreditHistoryKind, ListQuery } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { type CreditEntryKind, creditEntries, creditGrants } from '../../db/schema/index.js';
import { nanosToDecimalDollars, nanosToDollars } from '../money.js';
import { keysetPage, type Page, toPage } from '../pagination/keyset-page.js';
import { readPageQuery } from '../pagination/page-token.js';
import type { PaymentProvider } from '../payments/payment-provider.js';
import type { Viewer } from '../people/ensure-person.js';
import { receiptsOf } from './history-receipts.js';

type CreditEntry = typeof creditEntries.$inferSelect;

export type CreditHistoryDeps = { db: Database; secret: string; payments: Pick<PaymentProvider, 'name' | 'receiptUrl'> };

/**
 * The viewer's organisation's ledger as history: usage charges are the chat completions' rows, and
 * a debt payment is folded into the line whose credit paid it (see the contract). The literal list
 * is the predicate of the index credit_entries_history, so the planner can use it.
 */
export function creditHistoryOf(viewer: Pick<Viewer, 'organizationId'>) {
  return {
    where: and(eq(creditEntries.organizationId, viewer.organizationId), sql`${creditEntries.kind} NOT IN ('usage_charge', 'owed_payment')`),
    scope: viewer.organizationId,
  };
}

const kinds: Record<Exclude<CreditEntryKind, 'usage_charge' | 'owed_payment'>, CreditHistoryKind> = {
  top_up: 'top_up',
  auto_top_up: 'auto_top_up',
  grant: 'grant',
  grant_expiry: 'grant_expiry',
  refund: 'refund',
  dispute: 'dispute',
  // Credit given back: a dispute line with a positive amount.
  dispute_won: 'dispute',
  adjustment: 'adjustment',
};

const dollars = (nanos: bigint) => `$${nanosToDecimalDollars(nanos < 0n ? -nanos : nanos)}`;

/** The grant a `grant` line (reference: the grant) or a `grant_expiry` line (`grant:remainder`) is of. */
const grantIdOf = (row: CreditEntry) => ((row.kind === 'grant' || row.kind === 'grant_expiry') && row.reference ? row.reference.split(':')[0] : undefined);

/**
 * What a page of entries needs besides themselves: the debt payments they made (an owed_payment's
 * reference is the id of the entry whose credit paid it), their top-ups' and auto top-ups'
 * receipts (history-receipts.ts) and their grants (expiry and note).
 */
export async function historyDetails(deps: CreditHistoryDeps, organizationId: string, rows: CreditEntry[]) {
  const ids = rows.filter((row) => row.amountNanos > 0n).map((row) => row.id);
  const payments = ids.length
    ? await deps.db
        .select()
        .from(creditEntries)
        .where(and(eq(creditEntries.organizationId, organizationId), eq(creditEntries.kind, 'owed_payment'), inArray(creditEntries.reference, ids)))
    : [];
  const grantIds = [...new Set(rows.flatMap((row) => grantIdOf(row) ?? []))];
  const grants = grantIds.length
    ? await deps.db
        .select({ id: creditGrants.id, expiresAt: creditGrants.expiresAt, note: creditGrants.note })
        .from(creditGrants)
        .where(and(eq(creditGrants.organizationId, organizationId), inArray(creditGrants.id, grantIds)))
    : [];
  return {
    paymentOf: new Map(payments.map((payment) => [payment.reference, payment])),
    grants: new Map(grants.map((grant) => [grant.id, grant])),
    receipts: await receiptsOf(deps, organizationId, rows),
  };
}

export type HistoryDetails = Awaited<ReturnType<typeof historyDetails>>;

export function toCreditHistoryEntry(row: CreditEntry, { paymentOf, receipts, grants }: HistoryDetails): CreditHistoryEntry {
  const payment = paymentOf.get(row.id);
  const grantId = grantIdOf(row);
  const grant = grantId === undefined ? undefined : grants.get(grantId);
  const notes = [
    // An expiry line carries the note of the grant it ended.
    row.reason ?? (row.kind === 'grant_expiry' ? grant?.note : null),
    // A take-back larger than the balance: the rest became owed.
    row.owedNanos > 0n ? `${dollars(row.owedNanos)} more could not be taken from the balance and is owed` : null,
    payment ? `${dollars(payment.amountNanos)} of it paid what was owed` : null,
  ].filter((note): note is string => Boolean(note));
  return {
    id: row.id,
    createdAt: row.createdAt.toISOString(),
    kind: kinds[row.kind as keyof typeof kinds] ?? 'adjustment',
    amount: nanosToDollars(row.amountNanos),
    balanceAfter: nanosToDollars((payment ?? row).balanceAfterNanos),
    note: notes.length ? notes.join('; ') : null,
    expiresAt: grant?.expiresAt.toISOString() ?? null,
    receiptUrl: ((row.kind === 'top_up' || row.kind === 'auto_top_up') && row.reference && receipts.get(row.reference)) || null,
  };
}

/** The viewer's organisation's credit history, newest first unless `asc`, token-paged like every list. */
export async function listCreditHistory(deps: CreditHistoryDeps, viewer: Pick<Viewer, 'organizationId'>, query: ListQuery): Promise<Page<CreditHistoryEntry>> {
  const { where, scope } = creditHistoryOf(viewer);
  const context = { secret: deps.secret, scope: `credit-history:${scope}`, asc: query.asc };
  const page = await keysetPage(deps.db, { table: creditEntries, where, limit: query.limit, context, cursor: readPageQuery(context, query) });
  const details = await historyDetails(deps, viewer.organizationId, page.rows);
  return toPage(page, (row) => toCreditHistoryEntry(row, details));
}

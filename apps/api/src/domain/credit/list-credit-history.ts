import type { CreditHistoryEntry, CreditHistoryKind, ListQuery } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { checkoutSessions, type CreditEntryKind, creditEntries } from '../../db/schema/index.js';
import { nanosToDecimalDollars, nanosToDollars } from '../money.js';
import { keysetPage, type Page, toPage } from '../pagination/keyset-page.js';
import { readPageQuery } from '../pagination/page-token.js';
import type { PaymentProvider } from '../payments/payment-provider.js';
import type { Viewer } from '../people/ensure-person.js';

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

/**
 * What a page of entries needs besides themselves: the debt payments they made (an owed_payment's
 * reference is the id of the entry whose credit paid it) and their top-ups' receipts (a top-up's
 * reference is its checkout session; a receipt only from the provider running now).
 */
export async function historyDetails(deps: CreditHistoryDeps, organizationId: string, rows: CreditEntry[]) {
  const ids = rows.filter((row) => row.amountNanos > 0n).map((row) => row.id);
  const payments = ids.length
    ? await deps.db
        .select()
        .from(creditEntries)
        .where(and(eq(creditEntries.organizationId, organizationId), eq(creditEntries.kind, 'owed_payment'), inArray(creditEntries.reference, ids)))
    : [];
  const topUps = rows.flatMap((row) => (row.kind === 'top_up' && row.reference ? [row.reference] : []));
  const receiptUrl = deps.payments.receiptUrl;
  const sessions =
    topUps.length && receiptUrl
      ? await deps.db
          .select({ id: checkoutSessions.id })
          .from(checkoutSessions)
          .where(
            and(
              eq(checkoutSessions.organizationId, organizationId),
              eq(checkoutSessions.provider, deps.payments.name),
              eq(checkoutSessions.status, 'SUCCEEDED'),
              inArray(checkoutSessions.id, topUps),
            ),
          )
      : [];
  return {
    paymentOf: new Map(payments.map((payment) => [payment.reference, payment])),
    receipts: new Map(sessions.map(({ id }) => [id, receiptUrl?.({ organizationId, checkoutSessionId: id }) ?? null])),
  };
}

export type HistoryDetails = Awaited<ReturnType<typeof historyDetails>>;

export function toCreditHistoryEntry(row: CreditEntry, { paymentOf, receipts }: HistoryDetails): CreditHistoryEntry {
  const payment = paymentOf.get(row.id);
  const notes = [
    row.reason,
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
    expiresAt: null,
    receiptUrl: (row.kind === 'top_up' && row.reference && receipts.get(row.reference)) || null,
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

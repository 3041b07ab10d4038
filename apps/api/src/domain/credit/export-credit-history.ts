import type { CreditHistoryEntry } from '@meterway/contracts';
import { count } from 'drizzle-orm';
import { creditEntries } from '../../db/schema/index.js';
import { nanosToDecimalDollars } from '../money.js';
import { keysetPage } from '../pagination/keyset-page.js';
import type { PageCursor } from '../pagination/page-token.js';
import type { Viewer } from '../people/ensure-person.js';
import { csvField, csvRecord } from '../usage/csv.js';
import { type CreditHistoryDeps, creditHistoryOf, historyDetails, toCreditHistoryEntry } from './list-credit-history.js';

/** Rows per query, as the usage export reads them. */
const batchSize = 2_000;

const header = ['ID', 'Created at', 'Kind', 'Amount (USD)', 'Balance after (USD)', 'Note', 'Expires at', 'Receipt URL'];

/**
 * One record. The amounts are our own decimals: a negative one is a number, not a formula, so it
 * goes without the apostrophe csvField puts before a leading minus (that would make it text).
 */
const toRecord = (entry: CreditHistoryEntry, amountNanos: bigint, balanceAfterNanos: bigint) =>
  [
    csvField(entry.id),
    csvField(entry.createdAt),
    csvField(entry.kind),
    nanosToDecimalDollars(amountNanos),
    nanosToDecimalDollars(balanceAfterNanos),
    csvField(entry.note ?? ''),
    csvField(entry.expiresAt ?? ''),
    csvField(entry.receiptUrl ?? ''),
  ].join(',') + '\r\n';

/**
 * The viewer's organisation's credit history as CSV, in the list's order, the amounts exact in
 * dollars. Read and sent batch by batch as the consumer takes them, like the audit log export.
 */
export async function exportCreditHistory(
  deps: CreditHistoryDeps,
  viewer: Pick<Viewer, 'organizationId'>,
  query: { asc: boolean },
): Promise<{ rowCount: number; chunks: AsyncGenerator<string> }> {
  const { db } = deps;
  const { where, scope } = creditHistoryOf(viewer);
  const [counted] = await db.select({ rows: count() }).from(creditEntries).where(where);
  const context = { secret: deps.secret, scope: `credit-history-export:${scope}`, asc: query.asc };

  async function* chunks() {
    yield csvRecord(header);
    let cursor: PageCursor | undefined;
    for (;;) {
      const batch = await keysetPage(db, { table: creditEntries, where, limit: batchSize, context, cursor });
      const details = await historyDetails(deps, viewer.organizationId, batch.rows);
      if (batch.rows.length > 0)
        yield batch.rows
          .map((row) => {
            // The balance after the debt payment folded into the line, as the list shows it.
            const balanceAfterNanos = details.paymentOf.get(row.id)?.balanceAfterNanos ?? row.balanceAfterNanos;
            return toRecord(toCreditHistoryEntry(row, details), row.amountNanos, balanceAfterNanos);
          })
          .join('');
      const last = batch.rows.at(-1);
      if (!batch.nextPageToken || !last) return;
      cursor = { createdAt: last.createdAt, id: last.id, direction: 'next' };
    }
  }
  return { rowCount: counted?.rows ?? 0, chunks: chunks() };
}

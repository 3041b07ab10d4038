import type { Database } from '@meterway/db';
import { and, asc, desc, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import { encodePageToken, type PageCursor, type PageTokenContext } from './page-token.js';

/** A table listed newest or oldest first; an index on (scope columns…, created_at, id) serves it. */
type PagedTable = PgTable & { createdAt: AnyPgColumn; id: AnyPgColumn; $inferSelect: { createdAt: Date; id: string } };

export type KeysetPage<TRow> = { rows: TRow[]; nextPageToken: string | null; previousPageToken: string | null };

/** A list answer as the contracts' `pageOf` shapes it. */
export type Page<TItem> = { items: TItem[]; pagination: { nextPageToken: string | null; previousPageToken: string | null } };

export const toPage = <TRow, TItem>({ rows, nextPageToken, previousPageToken }: KeysetPage<TRow>, toItem: (row: TRow) => TItem): Page<TItem> => ({
  items: rows.map(toItem),
  pagination: { nextPageToken, previousPageToken },
});

export type KeysetPageInput<TTable extends PagedTable> = {
  table: TTable;
  /** The rows this list may show (organisation, filter); the token context's scope must name it. */
  where: SQL | undefined;
  limit: number;
  context: PageTokenContext;
  cursor: PageCursor | undefined;
};

/**
 * One page of a keyset-paginated list ordered by (created_at, id); the id breaks ties between
 * rows of the same millisecond. A next page reads on from the last row of the page before; a
 * previous page reads backwards from the first row of the page after, then flips the rows, so
 * going back always gives exactly the page seen before. One row more than the limit tells
 * whether there is a further page in the reading direction.
 */
export async function keysetPage<TTable extends PagedTable>(db: Database, input: KeysetPageInput<TTable>): Promise<KeysetPage<TTable['$inferSelect']>> {
  const { table, limit, context, cursor } = input;
  const backwards = cursor?.direction === 'previous';
  const ascending = context.asc !== backwards;
  // A row-value comparison, so Postgres walks the composite index from the cursor on.
  const from =
    cursor &&
    (ascending
      ? sql`(${table.createdAt}, ${table.id}) > (${cursor.createdAt.toISOString()}::timestamptz, ${cursor.id})`
      : sql`(${table.createdAt}, ${table.id}) < (${cursor.createdAt.toISOString()}::timestamptz, ${cursor.id})`);
  const order = ascending ? [asc(table.createdAt), asc(table.id)] : [desc(table.createdAt), desc(table.id)];

  const fetched = (await db
    .select()
    .from(table as PgTable)
    .where(and(input.where, from))
    .orderBy(...order)
    .limit(limit + 1)) as TTable['$inferSelect'][];
  const more = fetched.length > limit;
  const rows = fetched.slice(0, limit);
  if (backwards) rows.reverse();

  // Reading forwards, a page before exists once we have moved off the first page; reading
  // backwards, the page we came from lies ahead.
  const hasNext = backwards || more;
  const hasPrevious = backwards ? more : cursor !== undefined;
  const first = rows[0];
  const last = rows.at(-1);
  return {
    rows,
    nextPageToken: hasNext && last ? encodePageToken(context, { createdAt: last.createdAt, id: last.id, direction: 'next' }) : null,
    previousPageToken: hasPrevious && first ? encodePageToken(context, { createdAt: first.createdAt, id: first.id, direction: 'previous' }) : null,
  };
}

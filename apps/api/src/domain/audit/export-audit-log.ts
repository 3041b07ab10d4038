import type { Database } from '@meterway/db';
import { count } from 'drizzle-orm';
import { auditEntries } from '../../db/schema/index.js';
import { keysetPage } from '../pagination/keyset-page.js';
import type { PageCursor } from '../pagination/page-token.js';
import type { Viewer } from '../people/ensure-person.js';
import { csvRecord } from '../usage/csv.js';
import { type AuditLogFilter, auditLogOf, toAuditEntry } from './list-audit-log.js';

/** Rows per query, as the usage export reads them. */
const batchSize = 2_000;

const header = ['ID', 'Created at', 'Actor e-mail', 'Action', 'Target', 'Changes'];

const toRecord = (row: typeof auditEntries.$inferSelect) => {
  const entry = toAuditEntry(row);
  return csvRecord([entry.id, entry.createdAt, entry.actorEmail, entry.action, entry.target, JSON.stringify(entry.changes)]);
};

/**
 * The viewer's organisation's audit log as CSV, in the list's order and with its filters; the
 * changes as JSON. Read and sent batch by batch as the consumer takes them, like the usage export.
 */
export async function exportAuditLog(
  deps: { db: Database; secret: string },
  viewer: Pick<Viewer, 'organizationId'>,
  query: AuditLogFilter & { asc: boolean },
): Promise<{ rowCount: number; chunks: AsyncGenerator<string> }> {
  const { db } = deps;
  const { where, scope } = auditLogOf(viewer, query);
  const [counted] = await db.select({ rows: count() }).from(auditEntries).where(where);
  const context = { secret: deps.secret, scope: `audit-log-export:${scope}`, asc: query.asc };

  async function* chunks() {
    yield csvRecord(header);
    let cursor: PageCursor | undefined;
    for (;;) {
      const batch = await keysetPage(db, { table: auditEntries, where, limit: batchSize, context, cursor });
      if (batch.rows.length > 0) yield batch.rows.map(toRecord).join('');
      const last = batch.rows.at(-1);
      if (!batch.nextPageToken || !last) return;
      cursor = { createdAt: last.createdAt, id: last.id, direction: 'next' };
    }
  }
  return { rowCount: counted?.rows ?? 0, chunks: chunks() };
}

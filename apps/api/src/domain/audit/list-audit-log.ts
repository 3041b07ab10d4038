import type { AuditAction, AuditChanges, AuditEntry, ListQuery } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq, sql } from 'drizzle-orm';
import { auditEntries } from '../../db/schema/index.js';
import { keysetPage, type Page, toPage } from '../pagination/keyset-page.js';
import { readPageQuery } from '../pagination/page-token.js';
import type { Viewer } from '../people/ensure-person.js';

/** The audit log's filters: who acted (an e-mail, compared without case) and what they did. */
export type AuditLogFilter = { actorEmail?: string | undefined; action?: AuditAction | undefined };

/** The entries of the viewer's organisation the filter lets through, and the scope naming them for page tokens. */
export function auditLogOf(viewer: Pick<Viewer, 'organizationId'>, filter: AuditLogFilter) {
  const actorEmail = filter.actorEmail?.trim().toLowerCase() || undefined;
  return {
    where: and(
      eq(auditEntries.organizationId, viewer.organizationId),
      actorEmail ? eq(sql`lower(${auditEntries.actorEmail})`, actorEmail) : undefined,
      filter.action ? eq(auditEntries.action, filter.action) : undefined,
    ),
    // JSON, so no e-mail can make two filters read as one scope.
    scope: JSON.stringify([viewer.organizationId, actorEmail ?? null, filter.action ?? null]),
  };
}

/** jsonb keeps an object's keys sorted by length: each change is put back as before → after. */
const fromThenTo = (changes: AuditChanges): AuditChanges =>
  Object.fromEntries(
    Object.entries(changes).map(([field, change]) => [
      field,
      { ...('from' in change ? { from: change.from } : {}), ...('to' in change ? { to: change.to } : {}) },
    ]),
  );

export const toAuditEntry = (row: typeof auditEntries.$inferSelect): AuditEntry => ({
  id: row.id,
  createdAt: row.createdAt.toISOString(),
  actorEmail: row.actorEmail,
  action: row.action as AuditAction,
  target: row.target,
  changes: fromThenTo(row.changes),
});

/** The viewer's organisation's audit log, newest first unless `asc`, filtered by actor and action. */
export async function listAuditLog(
  deps: { db: Database; secret: string },
  viewer: Pick<Viewer, 'organizationId'>,
  query: ListQuery & AuditLogFilter,
): Promise<Page<AuditEntry>> {
  const { where, scope } = auditLogOf(viewer, query);
  const context = { secret: deps.secret, scope: `audit-log:${scope}`, asc: query.asc };
  const page = await keysetPage(deps.db, { table: auditEntries, where, limit: query.limit, context, cursor: readPageQuery(context, query) });
  return toPage(page, toAuditEntry);
}

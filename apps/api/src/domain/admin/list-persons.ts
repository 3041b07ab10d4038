import type { ListQuery, Person } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, gt, inArray } from 'drizzle-orm';
import { creditBalances, persons } from '../../db/schema/index.js';
import { nanosToDollars } from '../money.js';
import { keysetPage, type Page, toPage } from '../pagination/keyset-page.js';
import { readPageQuery } from '../pagination/page-token.js';

/**
 * Every person of every organisation, newest first unless `asc` (system admins only), with what
 * their organisation owes after a refund or dispute.
 */
export async function listPersons(deps: { db: Database; secret: string }, query: ListQuery): Promise<Page<Person>> {
  const context = { secret: deps.secret, scope: 'admin-persons', asc: query.asc };
  const page = await keysetPage(deps.db, { table: persons, where: undefined, limit: query.limit, context, cursor: readPageQuery(context, query) });
  const organizationIds = [...new Set(page.rows.map((row) => row.organizationId))];
  const owing = organizationIds.length
    ? await deps.db
        .select({ organizationId: creditBalances.organizationId, owedNanos: creditBalances.owedNanos })
        .from(creditBalances)
        .where(and(inArray(creditBalances.organizationId, organizationIds), gt(creditBalances.owedNanos, 0n)))
    : [];
  const owed = new Map(owing.map((row) => [row.organizationId, row.owedNanos]));
  return toPage(page, (row) => ({
    id: row.id,
    email: row.email,
    createdAt: row.createdAt.toISOString(),
    owedAmount: nanosToDollars(owed.get(row.organizationId) ?? 0n),
  }));
}

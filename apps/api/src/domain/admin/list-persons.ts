import type { ListQuery, OrganizationMembership, Person } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, asc, eq, gt, inArray } from 'drizzle-orm';
import { creditBalances, memberships, organizations, persons } from '../../db/schema/index.js';
import { nanosToDollars } from '../money.js';
import { keysetPage, type Page, toPage } from '../pagination/keyset-page.js';
import { readPageQuery } from '../pagination/page-token.js';

/** The organisations of each person, oldest membership first. */
async function organizationsOf(db: Database, personIds: string[]) {
  const rows = personIds.length
    ? await db
        .select({ personId: memberships.personId, organizationId: organizations.id, organizationName: organizations.name, role: memberships.role })
        .from(memberships)
        .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
        .where(inArray(memberships.personId, personIds))
        .orderBy(asc(memberships.createdAt), asc(organizations.id))
    : [];
  const byPerson = new Map<string, OrganizationMembership[]>();
  for (const { personId, ...membership } of rows) byPerson.set(personId, [...(byPerson.get(personId) ?? []), membership]);
  return byPerson;
}

/**
 * Every person of every organisation, newest first unless `asc` (system admins only), with their
 * organisations and roles, and what their current organisation owes after a refund or dispute.
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
  const organizationsByPerson = await organizationsOf(
    deps.db,
    page.rows.map((row) => row.id),
  );
  return toPage(page, (row) => ({
    id: row.id,
    email: row.email,
    createdAt: row.createdAt.toISOString(),
    owedAmount: nanosToDollars(owed.get(row.organizationId) ?? 0n),
    organizations: organizationsByPerson.get(row.id) ?? [],
  }));
}

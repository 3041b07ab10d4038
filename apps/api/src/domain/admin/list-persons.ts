import type { ListQuery, Person } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { persons } from '../../db/schema/index.js';
import { keysetPage, type Page, toPage } from '../pagination/keyset-page.js';
import { readPageQuery } from '../pagination/page-token.js';

/** Every person of every organisation, newest first unless `asc` (system admins only). */
export async function listPersons(deps: { db: Database; secret: string }, query: ListQuery): Promise<Page<Person>> {
  const context = { secret: deps.secret, scope: 'admin-persons', asc: query.asc };
  const page = await keysetPage(deps.db, { table: persons, where: undefined, limit: query.limit, context, cursor: readPageQuery(context, query) });
  return toPage(page, (row) => ({ id: row.id, email: row.email, createdAt: row.createdAt.toISOString() }));
}

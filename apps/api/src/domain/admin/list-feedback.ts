import type { Feedback, ListQuery } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { feedback } from '../../db/schema/index.js';
import { keysetPage, type Page, toPage } from '../pagination/keyset-page.js';
import { readPageQuery } from '../pagination/page-token.js';

/** All feedback, newest first unless `asc` (system admins only). */
export async function listFeedback(deps: { db: Database; secret: string }, query: ListQuery): Promise<Page<Feedback>> {
  const context = { secret: deps.secret, scope: 'admin-feedback', asc: query.asc };
  const page = await keysetPage(deps.db, { table: feedback, where: undefined, limit: query.limit, context, cursor: readPageQuery(context, query) });
  return toPage(page, (row) => ({
    id: row.id,
    fromEmail: row.fromEmail,
    // Only submitFeedback writes this column, with a type the contract has already checked.
    type: row.type as Feedback['type'],
    description: row.description,
  }));
}

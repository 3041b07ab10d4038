import type { Database } from '@meterway/db';
import { and, count, eq } from 'drizzle-orm';
import { chatCompletions, publishableKeys } from '../../db/schema/index.js';
import { nanosToDecimalDollars } from '../money.js';
import { keysetPage } from '../pagination/keyset-page.js';
import type { PageCursor } from '../pagination/page-token.js';
import type { Viewer } from '../people/ensure-person.js';
import { csvRecord } from './csv.js';
import { type KeyFilter, keyFilterOf } from './key-filter.js';

export type ChatCompletionExportQuery = KeyFilter & { asc: boolean };

/** Rows per query: few round trips, and one batch (≈ 1 MB of CSV) is all the export holds at once. */
export const exportBatchSize = 2_000;

const header = [
  'ID',
  'Created at',
  'Model',
  'Publishable key ID',
  'Publishable key name',
  'Estimated input tokens',
  'Actual input tokens',
  'Estimated input cost (USD)',
  'Actual input cost (USD)',
  'Output tokens',
  'Output cost (USD)',
  'Total cost (USD)',
  'Usage estimated',
  'Cached input tokens',
  'Price list version',
  'End user',
  'Client network',
  // Appended, so the columns before keep their places: a secret key's calls name their key here.
  'Secret key ID',
  'Secret key name',
  'Provider',
  'Cache hit',
];

type KeyOfRow = { name: string; secret: boolean };

const toRecord = (row: typeof chatCompletions.$inferSelect, keys: ReadonlyMap<string, KeyOfRow>) => {
  const key = keys.get(row.publishableKeyId);
  const [publishable, secret] = key?.secret
    ? [
        ['', ''],
        [row.publishableKeyId, key.name],
      ]
    : [
        [row.publishableKeyId, key?.name ?? ''],
        ['', ''],
      ];
  return csvRecord([
    row.id,
    row.createdAt.toISOString(),
    row.model,
    ...publishable,
    String(row.estimatedInputTokens),
    String(row.inputTokens),
    nanosToDecimalDollars(row.estimatedInputCostNanos),
    nanosToDecimalDollars(row.inputCostNanos),
    String(row.outputTokens),
    nanosToDecimalDollars(row.outputCostNanos),
    // Empty while the call is still being settled, as the list leaves the total out.
    row.totalCostNanos === null ? '' : nanosToDecimalDollars(row.totalCostNanos),
    String(row.usageEstimated),
    String(row.cachedInputTokens),
    // Empty for calls metered before rows kept it.
    row.priceVersion ?? '',
    row.endUser ?? '',
    row.clientNetwork ?? '',
    ...secret,
    // Empty for calls metered before rows kept it.
    row.provider ?? '',
    String(row.cacheHit),
  ]);
};

/**
 * The viewer's organisation's metered calls as CSV, in the list's order and with its filters
 * (another organisation's key id matches nothing). `rowCount` is counted first, for progress;
 * `chunks` yields the header, then one chunk per keyset batch, reading a batch only when the
 * consumer asks for more, so memory stays at one batch whatever the size and a consumer that
 * stops (a client gone) stops the reading.
 */
export async function exportChatCompletions(
  deps: { db: Database; secret: string },
  viewer: Viewer,
  query: ChatCompletionExportQuery,
): Promise<{ rowCount: number; chunks: AsyncGenerator<string> }> {
  const { db } = deps;
  const key = keyFilterOf(db, viewer.organizationId, query);
  const where = and(eq(chatCompletions.organizationId, viewer.organizationId), key.where);
  const [counted] = await db.select({ rows: count() }).from(chatCompletions).where(where);
  // Deleted keys included: their calls stay in the history.
  const keys = await db
    .select({ id: publishableKeys.id, name: publishableKeys.name, kind: publishableKeys.kind })
    .from(publishableKeys)
    .where(eq(publishableKeys.organizationId, viewer.organizationId));
  const keysById = new Map(keys.map((key) => [key.id, { name: key.name, secret: key.kind === 'secret' }]));
  const context = { secret: deps.secret, scope: `chat-completions-export:${viewer.organizationId}:${key.scope}`, asc: query.asc };

  async function* chunks() {
    yield csvRecord(header);
    let cursor: PageCursor | undefined;
    for (;;) {
      // The list's own keyset reading, so the export has its order exactly (its page tokens go unused).
      const batch = await keysetPage(db, { table: chatCompletions, where, limit: exportBatchSize, context, cursor });
      if (batch.rows.length > 0) yield batch.rows.map((row) => toRecord(row, keysById)).join('');
      const last = batch.rows.at(-1);
      if (!batch.nextPageToken || !last) return;
      cursor = { createdAt: last.createdAt, id: last.id, direction: 'next' };
    }
  }
  return { rowCount: counted?.rows ?? 0, chunks: chunks() };
}

import type { ChatCompletion, ListQuery } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import { chatCompletions } from '../../db/schema/index.js';
import { nanosToDollars } from '../money.js';
import { keysetPage, type Page, toPage } from '../pagination/keyset-page.js';
import { readPageQuery } from '../pagination/page-token.js';
import type { Viewer } from '../people/ensure-person.js';
import { type KeyFilter, keyFilterOf, keyIdsOf, secretKeysAmong } from './key-filter.js';

export type ChatCompletionQuery = ListQuery & KeyFilter;

const toContract = (row: typeof chatCompletions.$inferSelect, secretKeys: ReadonlySet<string>): ChatCompletion => ({
  id: row.id,
  createdAt: row.createdAt.toISOString(),
  model: row.model,
  ...keyIdsOf(row.publishableKeyId, secretKeys),
  estimatedInputTokens: row.estimatedInputTokens,
  inputTokens: row.inputTokens,
  estimatedInputCost: nanosToDollars(row.estimatedInputCostNanos),
  inputCost: nanosToDollars(row.inputCostNanos),
  outputTokens: row.outputTokens,
  outputCost: nanosToDollars(row.outputCostNanos),
  // Null while the call is still being settled: the console shows no total rather than 0.
  ...(row.totalCostNanos === null ? {} : { totalCost: nanosToDollars(row.totalCostNanos) }),
  endUser: row.endUser,
  clientNetwork: row.clientNetwork,
  provider: row.provider,
  cacheHit: row.cacheHit,
});

/** The organisation's metered calls, newest first unless `asc`, optionally one key's. */
export async function listChatCompletions(
  deps: { db: Database; secret: string },
  viewer: Pick<Viewer, 'organizationId'>,
  query: ChatCompletionQuery,
): Promise<Page<ChatCompletion>> {
  const key = keyFilterOf(deps.db, viewer.organizationId, query);
  const context = { secret: deps.secret, scope: `chat-completions:${viewer.organizationId}:${key.scope}`, asc: query.asc };
  const page = await keysetPage(deps.db, {
    table: chatCompletions,
    where: and(eq(chatCompletions.organizationId, viewer.organizationId), key.where),
    limit: query.limit,
    context,
    cursor: readPageQuery(context, query),
  });
  const secretKeys = await secretKeysAmong(
    deps.db,
    viewer.organizationId,
    page.rows.map((row) => row.publishableKeyId),
  );
  return toPage(page, (row) => toContract(row, secretKeys));
}

import { bigint, date, primaryKey, text } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { keyOfOrganization, keyOwnerColumns } from './key-owner-columns.js';

/**
 * Chat completions summed per organisation, UTC day, key and model, so a 30-day chart reads a few
 * hundred rows however many calls there were. Kept by a statement trigger on chat_completions
 * (db/functions/add-to-usage-daily.sql): every insert path, batched settlement included, adds to
 * it in the same transaction.
 */
export const usageDaily = appSchema.table(
  'usage_daily',
  {
    ...keyOwnerColumns(),
    day: date('day', { mode: 'string' }).notNull(),
    model: text('model').notNull(),
    calls: bigint('calls', { mode: 'bigint' }).notNull(),
    inputTokens: bigint('input_tokens', { mode: 'bigint' }).notNull(),
    outputTokens: bigint('output_tokens', { mode: 'bigint' }).notNull(),
    costNanos: bigint('cost_nanos', { mode: 'bigint' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.day, table.publishableKeyId, table.model] }),
    keyOfOrganization('usage_daily_publishable_key_fk', table),
  ],
);

import { index, integer, json, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { keyOfOrganization, keyOwnerColumns } from './key-owner-columns.js';

/**
 * A key's cached answers (issue #24): a non-streamed answer, by the hash of the request it
 * answered, until it expires; with the usage the provider reported for it and the provider's id,
 * which the rows of its hits show. Keyed by organisation and key, so it never answers another's.
 */
export const responseCache = appSchema.table(
  'response_cache',
  {
    ...keyOwnerColumns(),
    requestHash: text('request_hash').notNull(),
    /** json, not jsonb: kept as the provider wrote it, its fields in their order. */
    answer: json('answer').$type<Record<string, unknown>>().notNull(),
    inputTokens: integer('input_tokens').notNull(),
    cachedInputTokens: integer('cached_input_tokens').notNull(),
    outputTokens: integer('output_tokens').notNull(),
    provider: text('provider').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.publishableKeyId, table.requestHash] }),
    index('response_cache_expiry').on(table.expiresAt),
    keyOfOrganization('response_cache_publishable_key_fk', table),
  ],
);

import { bigint, boolean, index, integer, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { organizations } from './people.js';
import { publishableKeys } from './publishable-keys.js';

/** One metered gateway call; costs in nano-dollars. Written by the gateway, listed by the console. */
export const chatCompletions = appSchema.table(
  'chat_completions',
  {
    id: text('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    publishableKeyId: uuid('publishable_key_id')
      .notNull()
      .references(() => publishableKeys.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    model: text('model').notNull(),
    estimatedInputTokens: integer('estimated_input_tokens').notNull(),
    inputTokens: integer('input_tokens').notNull(),
    estimatedInputCostNanos: bigint('estimated_input_cost_nanos', { mode: 'bigint' }).notNull(),
    inputCostNanos: bigint('input_cost_nanos', { mode: 'bigint' }).notNull(),
    outputTokens: integer('output_tokens').notNull(),
    outputCostNanos: bigint('output_cost_nanos', { mode: 'bigint' }).notNull(),
    /** Null while a call is still being settled. */
    totalCostNanos: bigint('total_cost_nanos', { mode: 'bigint' }),
    /** True when the provider reported no usage and the charge comes from our own count. */
    usageEstimated: boolean('usage_estimated').notNull().default(false),
  },
  (table) => [
    // Keyset pagination: newest or oldest first, per organisation and per key.
    index('chat_completions_organization_page').on(table.organizationId, table.createdAt, table.id),
    index('chat_completions_key_page').on(table.organizationId, table.publishableKeyId, table.createdAt, table.id),
  ],
);

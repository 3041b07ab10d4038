import { bigint, boolean, index, integer, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { keyOfOrganization, keyOwnerColumns } from './key-owner-columns.js';

/** One metered gateway call; costs in nano-dollars. Written by the gateway, listed by the console. */
export const chatCompletions = appSchema.table(
  'chat_completions',
  {
    id: text('id').notNull(),
    ...keyOwnerColumns(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    model: text('model').notNull(),
    estimatedInputTokens: integer('estimated_input_tokens').notNull(),
    inputTokens: integer('input_tokens').notNull(),
    /** Of the input tokens, those the provider reported as cached (priced at the cached-input price). */
    cachedInputTokens: integer('cached_input_tokens').notNull().default(0),
    estimatedInputCostNanos: bigint('estimated_input_cost_nanos', { mode: 'bigint' }).notNull(),
    inputCostNanos: bigint('input_cost_nanos', { mode: 'bigint' }).notNull(),
    outputTokens: integer('output_tokens').notNull(),
    outputCostNanos: bigint('output_cost_nanos', { mode: 'bigint' }).notNull(),
    /** Null while a call is still being settled. */
    totalCostNanos: bigint('total_cost_nanos', { mode: 'bigint' }),
    /** True when the provider reported no usage and the charge comes from our own count. */
    usageEstimated: boolean('usage_estimated').notNull().default(false),
    /** The price list's version the call was priced with (null on rows from before it was recorded). */
    priceVersion: text('price_version'),
    /** How far the provider's report went above the call's hold: 0 unless the provider or our estimate was wrong. */
    overHoldNanos: bigint('over_hold_nanos', { mode: 'bigint' }).notNull().default(0n),
    /** What the credit could not pay of the total (only ever part of an over-hold charge): total − its share of its usage charge. */
    unpaidNanos: bigint('unpaid_nanos', { mode: 'bigint' }).notNull().default(0n),
    /**
     * The ledger entry (`usage_charge`) that charged it, shared by the calls of its key settled in the
     * same transaction; null when the credit paid nothing of it (a cached answer, a call of cost 0).
     */
    usageChargeId: uuid('usage_charge_id'),
    /** The end user (the `sub` of the key's end-user token), for a key that requires one. */
    endUser: text('end_user'),
    /** The caller's network, never its full address: an IPv4 /24 or an IPv6 /48. */
    clientNetwork: text('client_network'),
    /** The provider that served the call (its id in PROVIDERS_FILE, `upstream` or `demo`); null on rows from before it was recorded. */
    provider: text('provider'),
    /** Answered from the key's response cache: no provider saw it, and it was charged nothing (its tokens are the cached answer's). */
    cacheHit: boolean('cache_hit').notNull().default(false),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.id] }),
    keyOfOrganization('chat_completions_publishable_key_fk', table),
    // Keyset pagination: newest or oldest first, per organisation and per key.
    index('chat_completions_organization_page').on(table.organizationId, table.createdAt, table.id),
    index('chat_completions_key_page').on(table.organizationId, table.publishableKeyId, table.createdAt, table.id),
  ],
);

import { sql } from 'drizzle-orm';
import { bigint, date, index, integer, jsonb, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { organizations } from './people.js';

/** Money columns hold integer nano-dollars (1e-9 USD), never floats. */
export const publishableKeys = appSchema.table(
  'publishable_keys',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    name: text('name').notNull(),
    value: text('value').notNull(),
    /** After "Roll key": the value it replaced, which keeps authenticating until `previousValueExpiresAt`. */
    previousValue: text('previous_value'),
    previousValueExpiresAt: timestamp('previous_value_expires_at', { withTimezone: true, precision: 3 }),
    spendLimitNanos: bigint('spend_limit_nanos', { mode: 'bigint' }).notNull(),
    spendLimitPeriod: text('spend_limit_period', { enum: ['monthly'] }).notNull().default('monthly'),
    allowedOrigins: jsonb('allowed_origins').$type<string[]>().notNull(),
    /** The models the key may call; null: every priced model. */
    allowedModels: jsonb('allowed_models').$type<string[]>(),
    /** The most output tokens one call may ask for (and is held and forwarded at); null: the model's own limit. */
    maxOutputTokensPerCall: integer('max_output_tokens_per_call'),
    /** Requests per minute one client address may make with the key, shared by every instance; null: no cap. */
    clientRequestsPerMinute: integer('client_requests_per_minute'),
    /** Nano-dollars one client address may spend with the key per UTC day, held at admission like the budget; null: no cap. */
    clientSpendPerDayNanos: bigint('client_spend_per_day_nanos', { mode: 'bigint' }),
    /** The client addresses (as the gateway counts them: clientOf) the owner blocked; refused at once. */
    blocks: jsonb('blocks').$type<{ id: string; client: string; createdAt: string }[]>().notNull().default([]),
    /** Counts the key's edits (name, budget, origins, controls, rolls): admission checks the gateway's copy is the key as it is. */
    version: integer('version').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /** Soft delete: usage history keeps pointing at the key, which never authenticates again. */
    deletedAt: timestamp('deleted_at', { withTimezone: true, precision: 3 }),
  },
  (table) => [
    uniqueIndex('publishable_keys_value').on(table.value),
    uniqueIndex('publishable_keys_previous_value').on(table.previousValue),
    index('publishable_keys_organization').on(table.organizationId, table.createdAt),
  ],
);

/** What a key spent (and holds reserved) in one UTC calendar month; written by the gateway. */
export const keySpend = appSchema.table(
  'key_spend',
  {
    publishableKeyId: uuid('publishable_key_id')
      .notNull()
      .references(() => publishableKeys.id),
    periodStart: date('period_start', { mode: 'string' }).notNull(),
    spentNanos: bigint('spent_nanos', { mode: 'bigint' }).notNull().default(sql`0`),
    reservedNanos: bigint('reserved_nanos', { mode: 'bigint' }).notNull().default(sql`0`),
  },
  (table) => [primaryKey({ columns: [table.publishableKeyId, table.periodStart] })],
);

/** What one client address of a key spent (and holds reserved) in one UTC day; kept for keys that cap it. */
export const clientSpend = appSchema.table(
  'client_spend',
  {
    publishableKeyId: uuid('publishable_key_id')
      .notNull()
      .references(() => publishableKeys.id),
    client: text('client').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    spentNanos: bigint('spent_nanos', { mode: 'bigint' }).notNull().default(sql`0`),
    reservedNanos: bigint('reserved_nanos', { mode: 'bigint' }).notNull().default(sql`0`),
  },
  (table) => [primaryKey({ columns: [table.publishableKeyId, table.client, table.day] })],
);

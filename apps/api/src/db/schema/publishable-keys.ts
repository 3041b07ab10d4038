import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { organizations, persons } from './people.js';

export type EndUserTokens = { issuer: string; audience: string; jwksUrl: string };

/** A block names a client address or an end user. */
export type KeyBlockRow = { id: string; createdAt: string } & ({ client: string; endUser?: never } | { endUser: string; client?: never });

/** A publishable key lives in web pages; a secret key on the account holder's servers (issue #23). */
export type KeyKind = 'publishable' | 'secret';

/** What a secret key may do: call the gateway, or the developer API (/v1/organization/*). */
export type SecretKeyScope = 'gateway' | 'admin';

/**
 * The gateway's keys, publishable and secret alike (the table kept its first name): metering
 * (holds, spend, budgets, caps, usage rows, whose `publishable_key_id` names either kind) treats
 * both the same. Money columns hold integer nano-dollars (1e-9 USD), never floats.
 */
export const publishableKeys = appSchema.table(
  'publishable_keys',
  {
    id: uuid('id').notNull(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    kind: text('kind', { enum: ['publishable', 'secret'] })
      .$type<KeyKind>()
      .notNull()
      .default('publishable'),
    /** A secret key's scope; null for a publishable key. */
    scope: text('scope', { enum: ['gateway', 'admin'] }).$type<SecretKeyScope>(),
    /** A secret key's first characters (`sk_live_AbCd`), to recognise it by; null for a publishable key. */
    prefix: text('prefix'),
    name: text('name').notNull(),
    /** A publishable key's value; a secret key's keyed hash (domain/keys/secret-key-hash.ts), never the key itself. */
    value: text('value').notNull(),
    /** After "Roll key": the value (or hash) it replaced, which keeps authenticating until `previousValueExpiresAt`. */
    previousValue: text('previous_value'),
    previousValueExpiresAt: timestamp('previous_value_expires_at', { withTimezone: true, precision: 3 }),
    spendLimitNanos: bigint('spend_limit_nanos', { mode: 'bigint' }).notNull(),
    spendLimitPeriod: text('spend_limit_period', { enum: ['monthly'] })
      .notNull()
      .default('monthly'),
    allowedOrigins: jsonb('allowed_origins').$type<string[]>().notNull(),
    /** The models the key may call; null: every priced model. */
    allowedModels: jsonb('allowed_models').$type<string[]>(),
    /** The most output tokens one call may ask for (and is held and forwarded at); null: the model's own limit. */
    maxOutputTokensPerCall: integer('max_output_tokens_per_call'),
    /** Requests per minute one client address may make with the key, shared by every instance; null: no cap. */
    clientRequestsPerMinute: integer('client_requests_per_minute'),
    /** Nano-dollars one client address may spend with the key per UTC day, held at admission like the budget; null: no cap. */
    clientSpendPerDayNanos: bigint('client_spend_per_day_nanos', { mode: 'bigint' }),
    /** Requests per minute one end user may make with the key; null: no cap. */
    endUserRequestsPerMinute: integer('end_user_requests_per_minute'),
    /** Nano-dollars one end user may spend with the key per UTC day and per UTC calendar month, held at admission; null: no cap. */
    endUserSpendPerDayNanos: bigint('end_user_spend_per_day_nanos', { mode: 'bigint' }),
    endUserSpendPerMonthNanos: bigint('end_user_spend_per_month_nanos', { mode: 'bigint' }),
    /** The sign-in provider whose tokens (JWTs) the key requires, their `sub` the end user; null: none, each client address is an anonymous end user. */
    endUserTokens: jsonb('end_user_tokens').$type<EndUserTokens>(),
    /** For how many seconds a non-streamed answer answers the same request again, free (response-cache.ts); null: never. */
    responseCacheSeconds: integer('response_cache_seconds'),
    /** Whether cached answers are shared across end users; false: each end user is answered from their own requests only. */
    responseCacheShared: boolean('response_cache_shared').notNull().default(false),
    /** The client addresses (as the gateway counts them: clientOf) and end users the owner blocked; refused at once. */
    blocks: jsonb('blocks').$type<KeyBlockRow[]>().notNull().default([]),
    /** Counts the key's edits (name, budget, origins, controls, rolls): admission checks the gateway's copy is the key as it is. */
    version: integer('version').notNull().default(0),
    /**
     * Who was last shown the key's value: its maker, or whoever rolled it since (the developer API's
     * changes are its admin key's maker's). Null where no one is known (keys older than issue #53).
     */
    madeByPersonId: uuid('made_by_person_id').references(() => persons.id),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /** Soft delete: usage history keeps pointing at the key, which never authenticates again. */
    deletedAt: timestamp('deleted_at', { withTimezone: true, precision: 3 }),
  },
  (table) => [
    // What the gateway's rows refer to a key by, with its organisation (key-owner-columns.ts).
    primaryKey({ columns: [table.organizationId, table.id] }),
    index('publishable_keys_organization').on(table.organizationId, table.kind, table.createdAt),
    check(
      'publishable_keys_kind',
      sql`(${table.kind} = 'publishable' AND ${table.scope} IS NULL AND ${table.prefix} IS NULL) OR (${table.kind} = 'secret' AND ${table.scope} IN ('gateway', 'admin') AND ${table.prefix} IS NOT NULL)`,
    ),
  ],
);

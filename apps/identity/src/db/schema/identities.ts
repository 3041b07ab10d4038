import { sql } from 'drizzle-orm';
import { bigint, boolean, index, jsonb, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { identitySchema } from './identity-schema.js';

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
};

export const identities = identitySchema.table('identities', {
  id: uuid('id').primaryKey(),
  schemaId: text('schema_id').notNull().default('default'),
  state: text('state', { enum: ['active', 'inactive'] })
    .notNull()
    .default('active'),
  stateChangedAt: timestamp('state_changed_at', { withTimezone: true, precision: 3 }),
  traits: jsonb('traits').$type<{ email: string }>().notNull(),
  ...timestamps,
});

/** One row per credential type: `password` (identifier = e-mail, config = argon2id hash) or `totp`. */
export const credentials = identitySchema.table(
  'credentials',
  {
    identityId: uuid('identity_id')
      .notNull()
      .references(() => identities.id, { onDelete: 'cascade' }),
    type: text('type', { enum: ['password', 'totp'] }).notNull(),
    identifier: text('identifier').notNull(),
    config: jsonb('config').$type<{ hashedPassword?: string; totpSecret?: string }>().notNull(),
    /** TOTP: the time step of the last accepted code; a code of that step or an older one is refused (no replay). */
    lastUsedStep: bigint('last_used_step', { mode: 'number' }),
    ...timestamps,
  },
  (table) => [
    primaryKey({ columns: [table.identityId, table.type] }),
    uniqueIndex('credentials_password_identifier')
      .on(table.identifier)
      .where(sql`${table.type} = 'password'`),
  ],
);

/** An address of an identity (Kratos keeps verifiable and recovery addresses apart, with these columns in common). */
const addressColumns = () => ({
  id: uuid('id').primaryKey(),
  identityId: uuid('identity_id')
    .notNull()
    .references(() => identities.id, { onDelete: 'cascade' }),
  value: text('value').notNull(),
  via: text('via').notNull().default('email'),
});

export const verifiableAddresses = identitySchema.table(
  'verifiable_addresses',
  {
    ...addressColumns(),
    verified: boolean('verified').notNull().default(false),
    status: text('status', { enum: ['pending', 'sent', 'completed'] })
      .notNull()
      .default('pending'),
    verifiedAt: timestamp('verified_at', { withTimezone: true, precision: 3 }),
    ...timestamps,
  },
  (table) => [uniqueIndex('verifiable_addresses_value').on(table.value), index('verifiable_addresses_identity').on(table.identityId)],
);

export const recoveryAddresses = identitySchema.table(
  'recovery_addresses',
  {
    ...addressColumns(),
    ...timestamps,
  },
  (table) => [uniqueIndex('recovery_addresses_value').on(table.value), index('recovery_addresses_identity').on(table.identityId)],
);

import { boolean, index, integer, json, jsonb, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { identities } from './identities.js';
import { identitySchema } from './identity-schema.js';

export type FlowKind = 'login' | 'registration' | 'verification' | 'recovery' | 'settings';

/** A self-service flow. `ui` is what clients see; `context` is internal (never serialised). */
export const flows = identitySchema.table(
  'flows',
  {
    id: uuid('id').primaryKey(),
    kind: text('kind').$type<FlowKind>().notNull(),
    type: text('type', { enum: ['browser', 'api'] })
      .notNull()
      .default('browser'),
    state: text('state').notNull(),
    /** The real CSRF token the flow was issued with; a GET of the flow must come with the same cookie. */
    csrfToken: text('csrf_token').notNull(),
    requestUrl: text('request_url').notNull(),
    returnTo: text('return_to'),
    active: text('active'),
    identityId: uuid('identity_id').references(() => identities.id, { onDelete: 'cascade' }),
    requestedAal: text('requested_aal', { enum: ['aal1', 'aal2'] }),
    refresh: boolean('refresh').notNull().default(false),
    // json, not jsonb: clients see the nodes' keys in the order Kratos writes them.
    ui: json('ui').$type<Record<string, unknown>>().notNull(),
    context: jsonb('context').$type<Record<string, unknown>>().notNull().default({}),
    submissions: integer('submissions').notNull().default(0),
    issuedAt: timestamp('issued_at', { withTimezone: true, precision: 3 }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (table) => [index('flows_expires').on(table.expiresAt)],
);

/** One-time codes (verification, recovery, sign-in) and recovery link tokens, stored as HMACs. */
export const flowCodes = identitySchema.table(
  'flow_codes',
  {
    id: uuid('id').primaryKey(),
    flowId: uuid('flow_id')
      .notNull()
      .references(() => flows.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['verification_code', 'recovery_code', 'recovery_link', 'login_code'] }).notNull(),
    address: text('address').notNull(),
    identityId: uuid('identity_id').references(() => identities.id, { onDelete: 'cascade' }),
    hmac: text('hmac').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, precision: 3 }),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (table) => [index('flow_codes_flow').on(table.flowId), index('flow_codes_hmac').on(table.hmac)],
);

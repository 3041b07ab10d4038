import { boolean, index, jsonb, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { identities } from './identities.js';
import { identitySchema } from './identity-schema.js';

export type AuthenticationMethod = { method: string; aal: 'aal1' | 'aal2'; completed_at: string };
export type Device = { id: string; ip_address: string; user_agent: string; location: string };

/**
 * Sessions are found by the sha256 of their token: the token itself (in the cookie) is never
 * stored, so a database leak does not hand out sessions. The logout token is derived (an HMAC of
 * the session id), so it needs no column.
 */
export const sessions = identitySchema.table(
  'sessions',
  {
    id: uuid('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    identityId: uuid('identity_id')
      .notNull()
      .references(() => identities.id, { onDelete: 'cascade' }),
    active: boolean('active').notNull().default(true),
    aal: text('aal', { enum: ['aal1', 'aal2'] }).notNull(),
    authenticationMethods: jsonb('authentication_methods').$type<AuthenticationMethod[]>().notNull(),
    devices: jsonb('devices').$type<Device[]>().notNull(),
    issuedAt: timestamp('issued_at', { withTimezone: true, precision: 3 }).notNull(),
    authenticatedAt: timestamp('authenticated_at', { withTimezone: true, precision: 3 }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
    /** When the session was last used, to the minute: a session idle for SESSION_IDLE_TIMEOUT ends. */
    lastActiveAt: timestamp('last_active_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('sessions_token_hash').on(table.tokenHash), index('sessions_identity').on(table.identityId)],
);

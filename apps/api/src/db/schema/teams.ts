import type { AuditChanges, Role } from '@meterway/contracts';
import { index, jsonb, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { organizations, persons } from './people.js';

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * An invitation to join an organisation, pending until accepted, revoked (both delete it) or past
 * `expiresAt`. The mailed link carries a token, `<organization id>.<secret>`; only its SHA-256 is
 * kept, and the invitation is found by its organisation and that hash.
 */
export const invitations = appSchema.table(
  'invitations',
  {
    id: uuid('id').notNull(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    /** Lower-cased. */
    email: text('email').notNull(),
    role: text('role').$type<Role>().notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedBy: uuid('invited_by')
      .notNull()
      .references(() => persons.id),
    createdAt: at('created_at').notNull().defaultNow(),
    expiresAt: at('expires_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.id] }),
    uniqueIndex('invitations_organization_email').on(table.organizationId, table.email),
    uniqueIndex('invitations_token_hash').on(table.organizationId, table.tokenHash),
  ],
);

/** One line of an organisation's audit log, written in the transaction of the change it records. */
export const auditEntries = appSchema.table(
  'audit_entries',
  {
    id: uuid('id').notNull(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    /** Null for what the system did (a payment provider's event, the operator CLI). */
    actorPersonId: uuid('actor_person_id').references(() => persons.id),
    actorEmail: text('actor_email').notNull(),
    action: text('action').notNull(),
    target: text('target').notNull(),
    changes: jsonb('changes').$type<AuditChanges>().notNull().default({}),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.id] }),
    index('audit_entries_organization_page').on(table.organizationId, table.createdAt, table.id),
  ],
);

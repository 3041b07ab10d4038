import type { Role } from '@meterway/contracts';
import { boolean, index, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';

const createdAt = timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow();

export const organizations = appSchema.table('organizations', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  createdAt,
});

/**
 * A signed-in person, provisioned on first sight from identity's whoami with an organisation of
 * their own. `organizationId` is the organisation the person works in now (switched in the console);
 * memberships say which organisations they belong to and with what role.
 */
export const persons = appSchema.table(
  'persons',
  {
    id: uuid('id').primaryKey(),
    identityId: uuid('identity_id').notNull(),
    email: text('email').notNull(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    systemAdmin: boolean('system_admin').notNull().default(false),
    createdAt,
  },
  (table) => [
    uniqueIndex('persons_identity').on(table.identityId),
    index('persons_email').on(table.email),
    index('persons_created').on(table.createdAt, table.id),
  ],
);

/** A person's role in an organisation (issue #21); the migration keeps the role to the known four. */
export const memberships = appSchema.table(
  'memberships',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    personId: uuid('person_id')
      .notNull()
      .references(() => persons.id),
    role: text('role').$type<Role>().notNull(),
    createdAt,
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.personId] }), index('memberships_person').on(table.personId)],
);

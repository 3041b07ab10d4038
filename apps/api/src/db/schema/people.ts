import { boolean, index, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';

const createdAt = timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow();

export const organizations = appSchema.table('organizations', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  createdAt,
});

/** A signed-in person, provisioned on first sight from identity's whoami; one organisation each. */
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

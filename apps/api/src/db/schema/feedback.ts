import { feedbackTypes } from '@meterway/contracts';
import { sql } from 'drizzle-orm';
import { check, index, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { persons } from './people.js';

export const feedback = appSchema.table(
  'feedback',
  {
    id: uuid('id').primaryKey(),
    personId: uuid('person_id')
      .notNull()
      .references(() => persons.id),
    fromEmail: text('from_email').notNull(),
    type: text('type').notNull(),
    description: text('description').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (table) => [
    index('feedback_created').on(table.createdAt, table.id),
    check('feedback_type_known', sql.raw(`type in (${feedbackTypes.map((type) => `'${type}'`).join(', ')})`)),
  ],
);

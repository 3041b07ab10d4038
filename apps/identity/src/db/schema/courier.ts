import { index, integer, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { identitySchema } from './identity-schema.js';

/**
 * Kratos' courier queue: each mail is written here in the request and sent by the courier, which
 * retries with backoff and gives up after a few attempts. The bodies (which may carry a code or a
 * link) are blanked once the message is sent or abandoned.
 */
export const courierMessages = identitySchema.table(
  'courier_messages',
  {
    id: uuid('id').primaryKey(),
    status: text('status', { enum: ['queued', 'sent', 'abandoned'] })
      .notNull()
      .default('queued'),
    recipient: text('recipient').notNull(),
    template: text('template').notNull(),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    htmlBody: text('html_body').notNull(),
    sendCount: integer('send_count').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, precision: 3 }).notNull(),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull(),
  },
  (table) => [index('courier_messages_due').on(table.status, table.nextAttemptAt)],
);

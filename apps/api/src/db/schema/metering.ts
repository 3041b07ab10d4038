import { bigint, date, index, integer, jsonb, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { keyOfOrganization, keyOwnerColumns } from './key-owner-columns.js';

/**
 * What an in-flight gateway call holds against its organisation's credit and its key's monthly
 * budget until it is settled. A crashed instance leaves rows behind; once they expire the sweeper
 * charges those whose call reached the provider and releases the others.
 */
export const reservations = appSchema.table(
  'reservations',
  {
    id: uuid('id').primaryKey(),
    ...keyOwnerColumns(),
    periodStart: date('period_start', { mode: 'string' }).notNull(),
    amountNanos: bigint('amount_nanos', { mode: 'bigint' }).notNull(),
    /** The allowances of its caller the hold counts against (caller_spend rows), for a key that sets any. */
    allowances: text('allowances').array(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
    /** Set once the call reached the provider: its charge if it is never settled (app.settle_calls' row for all that was reserved). */
    forwarded: jsonb('forwarded'),
  },
  (table) => [index('reservations_expiry').on(table.expiresAt), keyOfOrganization('reservations_publishable_key_fk', table)],
);

/**
 * Request counters, one fixed one-minute window per subject, shared by every instance: a key (its
 * id) or one client address of a key (`<key id> <address>`).
 */
export const rateWindows = appSchema.table(
  'rate_windows',
  {
    subject: text('subject').primaryKey(),
    windowStart: timestamp('window_start', { withTimezone: true, precision: 3 }).notNull(),
    count: integer('count').notNull(),
  },
  (table) => [index('rate_windows_start').on(table.windowStart)],
);

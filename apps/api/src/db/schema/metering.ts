import { sql } from 'drizzle-orm';
import { bigint, date, index, integer, jsonb, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
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
    id: uuid('id').notNull(),
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
  (table) => [
    primaryKey({ columns: [table.organizationId, table.id] }),
    index('reservations_expiry').on(table.expiresAt),
    keyOfOrganization('reservations_publishable_key_fk', table),
  ],
);

/**
 * Request counters, one fixed one-minute window per subject of an organisation, shared by every
 * instance: a key (its id), one client address or end user of a key (`<key id> <address>`), a secret
 * key's developer API calls.
 */
export const rateWindows = appSchema.table(
  'rate_windows',
  {
    organizationId: uuid('organization_id').notNull(),
    subject: text('subject').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true, precision: 3 }).notNull(),
    count: integer('count').notNull(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.subject] }), index('rate_windows_start').on(table.windowStart)],
);

/** What was spent and what calls hold reserved, in nano-dollars: the money columns of key_spend and caller_spend. */
const spentAndReserved = () => ({
  spentNanos: bigint('spent_nanos', { mode: 'bigint' })
    .notNull()
    .default(sql`0`),
  reservedNanos: bigint('reserved_nanos', { mode: 'bigint' })
    .notNull()
    .default(sql`0`),
});

/** What a key spent (and holds reserved) in one UTC calendar month; written by the gateway. */
export const keySpend = appSchema.table(
  'key_spend',
  {
    ...keyOwnerColumns(),
    periodStart: date('period_start', { mode: 'string' }).notNull(),
    ...spentAndReserved(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.publishableKeyId, table.periodStart] }),
    keyOfOrganization('key_spend_publishable_key_fk', table),
  ],
);

/**
 * What one caller of a key spent (and holds reserved) in one period, for each allowance the key
 * sets: a client address's UTC day, an end user's UTC day or month. `allowance` names caller and
 * period (allowances.ts); `endsOn` is the period's last day, for the sweeper.
 */
export const callerSpend = appSchema.table(
  'caller_spend',
  {
    ...keyOwnerColumns(),
    allowance: text('allowance').notNull(),
    endsOn: date('ends_on', { mode: 'string' }).notNull(),
    ...spentAndReserved(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.publishableKeyId, table.allowance] }),
    keyOfOrganization('caller_spend_publishable_key_fk', table),
    index('caller_spend_ends_on').on(table.endsOn),
  ],
);

/**
 * A key's callers hour by hour, for the last day's view of who calls it: per client address (its
 * full form, clientOf) and per end user, calls and spend. Kept 48 hours, then deleted.
 */
export const callerHours = appSchema.table(
  'caller_hours',
  {
    ...keyOwnerColumns(),
    hour: timestamp('hour', { withTimezone: true, precision: 3 }).notNull(),
    kind: text('kind', { enum: ['address', 'end_user'] }).notNull(),
    caller: text('caller').notNull(),
    calls: integer('calls').notNull(),
    spentNanos: bigint('spent_nanos', { mode: 'bigint' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.publishableKeyId, table.hour, table.kind, table.caller] }),
    keyOfOrganization('caller_hours_publishable_key_fk', table),
    index('caller_hours_hour').on(table.hour),
  ],
);

import { sql } from 'drizzle-orm';
import { bigint, foreignKey, index, integer, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { organizations } from './people.js';
import { publishableKeys } from './publishable-keys.js';

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/** An organisation's alert thresholds; no row means the defaults ($5 balance; 50, 80 and 100 % of each key's budget). */
export const alertSettings = appSchema.table('alert_settings', {
  organizationId: uuid('organization_id')
    .primaryKey()
    .references(() => organizations.id),
  /** Alert when the balance falls below this; 0 turns the balance alert off. */
  lowBalanceNanos: bigint('low_balance_nanos', { mode: 'bigint' })
    .notNull()
    .default(sql`5000000000`),
  /** Percentages of a key's monthly budget that alert when spend reaches them; empty turns budget alerts off. */
  keyBudgetPercents: integer('key_budget_percents')
    .array()
    .notNull()
    .default(sql`'{50,80,100}'::integer[]`),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

export type AlertKind = 'low_balance' | 'key_budget';

/**
 * One alert, claimed once per threshold per period by whichever instance inserts it first (the
 * unique index), then sent; `sentAt` stays null until the mail went out, so a failed send is retried.
 * `threshold` is nano-dollars for low_balance and a percentage for key_budget; `period` is the
 * key's budget month (YYYY-MM) or, for the balance, the top-up that last re-armed it.
 */
export const alertDeliveries = appSchema.table(
  'alert_deliveries',
  {
    id: uuid('id').notNull(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    kind: text('kind').$type<AlertKind>().notNull(),
    publishableKeyId: uuid('publishable_key_id'),
    threshold: bigint('threshold', { mode: 'bigint' }).notNull(),
    period: text('period').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    sentAt: at('sent_at'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.id] }),
    // With its organisation, as the gateway's rows refer to a key (key-owner-columns.ts); null for a balance alert.
    foreignKey({
      name: 'alert_deliveries_publishable_key_fk',
      columns: [table.organizationId, table.publishableKeyId],
      foreignColumns: [publishableKeys.organizationId, publishableKeys.id],
    }),
    unique('alert_deliveries_once').on(table.organizationId, table.kind, table.publishableKeyId, table.threshold, table.period).nullsNotDistinct(),
    index('alert_deliveries_unsent')
      .on(table.createdAt)
      .where(sql`${table.sentAt} IS NULL`),
  ],
);

import { sql } from 'drizzle-orm';
import { bigint, check, index, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { organizations } from './people.js';

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * An organisation's prepaid credit. `balanceNanos` always equals the sum of its ledger entries
 * (both change in one transaction); `reservedNanos` is what in-flight gateway calls hold.
 */
export const creditBalances = appSchema.table(
  'credit_balances',
  {
    organizationId: uuid('organization_id')
      .primaryKey()
      .references(() => organizations.id),
    balanceNanos: bigint('balance_nanos', { mode: 'bigint' }).notNull().default(sql`0`),
    reservedNanos: bigint('reserved_nanos', { mode: 'bigint' }).notNull().default(sql`0`),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (table) => [
    check('credit_balances_balance_not_negative', sql`${table.balanceNanos} >= 0`),
    check('credit_balances_reserved_not_negative', sql`${table.reservedNanos} >= 0`),
  ],
);

export type CreditEntryKind = 'top_up' | 'usage_charge' | 'refund' | 'adjustment';

/** The credit ledger: every change to a balance, signed, with the balance it left. */
export const creditEntries = appSchema.table(
  'credit_entries',
  {
    id: uuid('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    kind: text('kind').$type<CreditEntryKind>().notNull(),
    amountNanos: bigint('amount_nanos', { mode: 'bigint' }).notNull(),
    balanceAfterNanos: bigint('balance_after_nanos', { mode: 'bigint' }).notNull(),
    /** What caused it (a checkout session, a chat completion); one entry per kind and reference. */
    reference: text('reference'),
    reason: text('reason'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('credit_entries_once_per_reference').on(table.kind, table.reference),
    index('credit_entries_organization').on(table.organizationId, table.createdAt),
  ],
);

export type CheckoutStatus = 'IN_PROGRESS' | 'SUCCEEDED' | 'FAILED' | 'EXPIRED';

/** A top-up attempt with the payment provider; amounts in nano-dollars. */
export const checkoutSessions = appSchema.table(
  'checkout_sessions',
  {
    id: text('id').primaryKey(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    provider: text('provider', { enum: ['stripe', 'sandbox'] }).notNull(),
    status: text('status').$type<CheckoutStatus>().notNull().default('IN_PROGRESS'),
    creditNanos: bigint('credit_nanos', { mode: 'bigint' }).notNull(),
    taxNanos: bigint('tax_nanos', { mode: 'bigint' }).notNull().default(sql`0`),
    /** The sandbox's secret for its checkout page; Stripe's stays with Stripe. Never logged. */
    clientSecretHash: text('client_secret_hash'),
    failureMessage: text('failure_message'),
    /** Sandbox only: the card's outcome, waiting to be applied as a webhook would apply it. */
    pendingOutcome: text('pending_outcome'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
    expiresAt: at('expires_at').notNull(),
    completedAt: at('completed_at'),
  },
  (table) => [index('checkout_sessions_organization').on(table.organizationId, table.createdAt), index('checkout_sessions_open').on(table.status, table.expiresAt)],
);

/** Webhook events already handled: at-least-once delivery becomes exactly-once handling. */
export const paymentEvents = appSchema.table(
  'payment_events',
  {
    provider: text('provider').notNull(),
    id: text('id').notNull(),
    type: text('type').notNull(),
    receivedAt: at('received_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.provider, table.id] })],
);

/** The organisation's customer at the payment provider (Stripe's cus_…), for checkout and the portal. */
export const billingCustomers = appSchema.table('billing_customers', {
  organizationId: uuid('organization_id')
    .primaryKey()
    .references(() => organizations.id),
  provider: text('provider').notNull(),
  customerId: text('customer_id').notNull(),
});

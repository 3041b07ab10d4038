import { sql } from 'drizzle-orm';
import { bigint, boolean, check, foreignKey, index, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { appSchema } from './app-schema.js';
import { organizations, persons } from './people.js';

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * An organisation's prepaid credit. `balanceNanos` always equals the sum of its ledger entries
 * (both change in one transaction); `reservedNanos` is what in-flight gateway calls hold.
 * `owedNanos` (the sum of the entries' `owedNanos`) is what a refund or dispute took back that the
 * credit could not pay: an organisation that owes has no credit, so its keys are refused, until a
 * top-up pays the debt first. `promotionalNanos` (the sum of the grants' remainders, never more than
 * the balance) is the part of the balance that promotional grants gave. `autoTopUpBelowNanos` is
 * the auto top-up threshold while auto top-up is on (null when off): a settlement that leaves the
 * balance below it claims a charge if one is due (app.auto_top_up_state).
 */
export const creditBalances = appSchema.table(
  'credit_balances',
  {
    organizationId: uuid('organization_id')
      .primaryKey()
      .references(() => organizations.id),
    balanceNanos: bigint('balance_nanos', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    reservedNanos: bigint('reserved_nanos', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    owedNanos: bigint('owed_nanos', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    promotionalNanos: bigint('promotional_nanos', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    autoTopUpBelowNanos: bigint('auto_top_up_below_nanos', { mode: 'bigint' }),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (table) => [
    check('credit_balances_balance_not_negative', sql`${table.balanceNanos} >= 0`),
    check('credit_balances_reserved_not_negative', sql`${table.reservedNanos} >= 0`),
    check('credit_balances_owed_not_negative', sql`${table.owedNanos} >= 0`),
    check('credit_balances_owing_has_no_credit', sql`${table.owedNanos} = 0 OR ${table.balanceNanos} = 0`),
    check('credit_balances_promotional_within_balance', sql`${table.promotionalNanos} >= 0 AND ${table.promotionalNanos} <= ${table.balanceNanos}`),
    // The auto top-up workers' sweep: the organisations with auto top-up on (migration 0031).
    index('credit_balances_auto_top_up_on')
      .on(table.organizationId)
      .where(sql`${table.autoTopUpBelowNanos} IS NOT NULL`),
  ],
);

/**
 * `refund` and `dispute` take back a top-up's credit, `dispute_won` gives it back, `owed_payment`
 * pays a debt from credit just added. `auto_top_up` is a saved card's charge (its reference the
 * auto_top_up_charges row), `grant` a promotional grant and `grant_expiry` what was left of it when
 * it expired (both referencing the credit_grants row).
 */
export type CreditEntryKind =
  'top_up' | 'auto_top_up' | 'usage_charge' | 'refund' | 'dispute' | 'dispute_won' | 'owed_payment' | 'adjustment' | 'grant' | 'grant_expiry';

/** The credit ledger: every change to a balance, signed, with the balance it left. */
export const creditEntries = appSchema.table(
  'credit_entries',
  {
    id: uuid('id').notNull(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    kind: text('kind').$type<CreditEntryKind>().notNull(),
    amountNanos: bigint('amount_nanos', { mode: 'bigint' }).notNull(),
    balanceAfterNanos: bigint('balance_after_nanos', { mode: 'bigint' }).notNull(),
    /** Signed change to what the organisation owes: a take-back the credit could not pay adds, an owed payment subtracts. */
    owedNanos: bigint('owed_nanos', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    /** What caused it (a checkout session, a chat completion); one entry per kind and reference. */
    reference: text('reference'),
    reason: text('reason'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.id] }),
    // Every reference (a completion, a checkout session, a charge, a grant) is one organisation's.
    uniqueIndex('credit_entries_once_per_reference').on(table.organizationId, table.kind, table.reference),
    index('credit_entries_organization').on(table.organizationId, table.createdAt),
    // The credit history's pages: the ledger without usage charges and the debt payments it folds in.
    index('credit_entries_history')
      .on(table.organizationId, table.createdAt, table.id)
      .where(sql`${table.kind} NOT IN ('usage_charge', 'owed_payment')`),
  ],
);

export type CheckoutStatus = 'IN_PROGRESS' | 'SUCCEEDED' | 'FAILED' | 'EXPIRED';

/** A top-up attempt with the payment provider; amounts in nano-dollars. */
export const checkoutSessions = appSchema.table(
  'checkout_sessions',
  {
    id: text('id').notNull(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    provider: text('provider', { enum: ['stripe', 'sandbox'] }).notNull(),
    /** `payment` buys credit; `setup` saves a card for auto top-up (its creditNanos is 0). */
    mode: text('mode').$type<'payment' | 'setup'>().notNull().default('payment'),
    status: text('status').$type<CheckoutStatus>().notNull().default('IN_PROGRESS'),
    creditNanos: bigint('credit_nanos', { mode: 'bigint' }).notNull(),
    taxNanos: bigint('tax_nanos', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    /** The sandbox's secret for its checkout page; Stripe's stays with Stripe. Never logged. */
    clientSecretHash: text('client_secret_hash'),
    failureMessage: text('failure_message'),
    /** Sandbox only: the card's outcome, waiting to be applied as a webhook would apply it. */
    pendingOutcome: text('pending_outcome'),
    /** Who started the top-up (null for those started before it was kept): the audit log names them when it succeeds. */
    startedBy: uuid('started_by').references(() => persons.id),
    /** Stripe's payment_intent of the paid session: a charge's refund or dispute finds its top-up by it. */
    paymentIntentId: text('payment_intent_id'),
    /** What the provider charged (credit and tax), known from the first refund or dispute. */
    chargedNanos: bigint('charged_nanos', { mode: 'bigint' }),
    /** The provider's cumulative refund of that charge (only ever grows). */
    refundedNanos: bigint('refunded_nanos', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    /** The provider's receipt of the payment (Stripe's charge receipt_url), where it gives one. */
    receiptUrl: text('receipt_url'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
    expiresAt: at('expires_at').notNull(),
    completedAt: at('completed_at'),
  },
  (table) => [
    // Stripe's events name the organisation (metadata), refunds and disputes through payment_objects (migration 0025).
    primaryKey({ columns: [table.organizationId, table.id] }),
    index('checkout_sessions_organization').on(table.organizationId, table.createdAt),
    index('checkout_sessions_open').on(table.status, table.expiresAt),
    // Unique everywhere by payment_objects' key, written with it.
    uniqueIndex('checkout_sessions_payment_intent')
      .on(table.organizationId, table.paymentIntentId)
      .where(sql`${table.paymentIntentId} IS NOT NULL`),
  ],
);

export type DisputeStatus = 'open' | 'won' | 'lost';

/**
 * A dispute of a payment that credited the ledger (a checkout top-up or an auto top-up charge, exactly
 * one): while open or lost its amount is taken back; won, it is given back.
 */
export const paymentDisputes = appSchema.table(
  'payment_disputes',
  {
    /** Its top-up's organisation. */
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    provider: text('provider').notNull(),
    id: text('id').notNull(),
    checkoutSessionId: text('checkout_session_id'),
    autoTopUpChargeId: uuid('auto_top_up_charge_id'),
    /** The disputed amount of the charge (credit and tax), as the provider reports it. */
    amountNanos: bigint('amount_nanos', { mode: 'bigint' }).notNull(),
    status: text('status').$type<DisputeStatus>().notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (table) => [
    // A dispute is of one charge, so of one payment and one organisation: still recorded once (payment-reversals.ts' ON CONFLICT).
    primaryKey({ columns: [table.organizationId, table.provider, table.id] }),
    foreignKey({
      name: 'payment_disputes_checkout_session_fk',
      columns: [table.organizationId, table.checkoutSessionId],
      foreignColumns: [checkoutSessions.organizationId, checkoutSessions.id],
    }),
    index('payment_disputes_checkout_session').on(table.organizationId, table.checkoutSessionId),
    foreignKey({
      name: 'payment_disputes_auto_top_up_charge_fk',
      columns: [table.organizationId, table.autoTopUpChargeId],
      foreignColumns: [autoTopUpCharges.organizationId, autoTopUpCharges.id],
    }),
    index('payment_disputes_auto_top_up_charge')
      .on(table.organizationId, table.autoTopUpChargeId)
      .where(sql`${table.autoTopUpChargeId} IS NOT NULL`),
    check('payment_disputes_of_one_payment', sql`num_nonnulls(${table.checkoutSessionId}, ${table.autoTopUpChargeId}) = 1`),
  ],
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

/**
 * A promotional grant (issue #22): credit an operator gave, with a note, that expires. Usage draws
 * on grants first, soonest expiry first; what remains at expiry leaves by a `grant_expiry` entry.
 */
export const creditGrants = appSchema.table(
  'credit_grants',
  {
    id: uuid('id').notNull(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    amountNanos: bigint('amount_nanos', { mode: 'bigint' }).notNull(),
    remainingNanos: bigint('remaining_nanos', { mode: 'bigint' }).notNull(),
    expiresAt: at('expires_at').notNull(),
    note: text('note').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.organizationId, table.id] }),
    check('credit_grants_amount_positive', sql`${table.amountNanos} > 0`),
    check('credit_grants_remaining_within_amount', sql`${table.remainingNanos} >= 0 AND ${table.remainingNanos} <= ${table.amountNanos}`),
    index('credit_grants_drawing_order')
      .on(table.organizationId, table.expiresAt, table.id)
      .where(sql`${table.remainingNanos} > 0`),
    index('credit_grants_expiring')
      .on(table.expiresAt)
      .where(sql`${table.remainingNanos} > 0`),
  ],
);

/** An organisation's auto top-up settings and saved card (issue #22); amounts in nano-dollars. */
export const autoTopUps = appSchema.table('auto_top_ups', {
  organizationId: uuid('organization_id')
    .primaryKey()
    .references(() => organizations.id),
  enabled: boolean('enabled').notNull().default(false),
  thresholdNanos: bigint('threshold_nanos', { mode: 'bigint' }).notNull(),
  topUpNanos: bigint('top_up_nanos', { mode: 'bigint' }).notNull(),
  monthlyCapNanos: bigint('monthly_cap_nanos', { mode: 'bigint' }).notNull(),
  /** The saved card: which provider holds it, its id there (Stripe's pm_…), and what people see of it. */
  provider: text('provider').$type<'stripe' | 'sandbox'>(),
  paymentMethodId: text('payment_method_id'),
  cardBrand: text('card_brand'),
  cardLast4: text('card_last4'),
  /** Why auto top-up was turned off by itself (a declined charge); null once it is turned on again. */
  disabledReason: text('disabled_reason'),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

export type AutoTopUpChargeStatus = 'pending' | 'processing' | 'succeeded' | 'failed';

/**
 * One auto top-up charge: claimed `pending` when one is due (app.claim_auto_top_up), `processing`
 * once sent to the provider (idempotently, keyed by its id), then `succeeded` (credited by an
 * `auto_top_up` entry referencing it) or `failed` (auto top-up turned off, and mailed).
 */
export const autoTopUpCharges = appSchema.table(
  'auto_top_up_charges',
  {
    id: uuid('id').notNull(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id),
    provider: text('provider').$type<'stripe' | 'sandbox'>().notNull(),
    amountNanos: bigint('amount_nanos', { mode: 'bigint' }).notNull(),
    status: text('status').$type<AutoTopUpChargeStatus>().notNull().default('pending'),
    paymentIntentId: text('payment_intent_id'),
    failureMessage: text('failure_message'),
    failureMailedAt: at('failure_mailed_at'),
    /** The provider's receipt of a succeeded charge (Stripe's charge receipt_url), where it gives one. */
    receiptUrl: text('receipt_url'),
    /** The provider's cumulative refund of the charge (only ever grows); what was charged is amountNanos. */
    refundedNanos: bigint('refunded_nanos', { mode: 'bigint' })
      .notNull()
      .default(sql`0`),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (table) => [
    // Its payment intent's metadata names the organisation beside the charge (stripe-saved-cards.ts).
    primaryKey({ columns: [table.organizationId, table.id] }),
    index('auto_top_up_charges_organization').on(table.organizationId, table.createdAt),
    index('auto_top_up_charges_open')
      .on(table.status, table.updatedAt)
      .where(sql`${table.status} IN ('pending', 'processing')`),
    index('auto_top_up_charges_unmailed')
      .on(table.updatedAt)
      .where(sql`${table.status} = 'failed' AND ${table.failureMailedAt} IS NULL`),
    // Unique everywhere by payment_objects' key, written with it.
    uniqueIndex('auto_top_up_charges_payment_intent')
      .on(table.organizationId, table.paymentIntentId)
      .where(sql`${table.paymentIntentId} IS NOT NULL`),
  ],
);

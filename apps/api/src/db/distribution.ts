/**
 * How the `app` schema would distribute on Citus (docs/scaling.md): every table is either
 * distributed by its organisation, all of them co-located so each money decision stays on one
 * shard, or a reference table copied to every node. distributable-schema.test.ts holds the schema
 * to this plan, so a new table has to be placed here.
 */

/** The distribution column of every distributed table. */
export const distributionColumn = 'organization_id';

/** Distributed by `organization_id`, co-located. */
export const distributedTables: readonly string[] = [
  'memberships',
  'invitations',
  'audit_entries',
  'publishable_keys',
  'key_spend',
  'caller_spend',
  'caller_hours',
  'rate_windows',
  'reservations',
  'chat_completions',
  'usage_daily',
  'response_cache',
  'credit_balances',
  'credit_entries',
  'credit_grants',
  'checkout_sessions',
  'payment_disputes',
  'billing_customers',
  'auto_top_ups',
  'auto_top_up_charges',
  'alert_settings',
  'alert_deliveries',
  'webhook_endpoints',
  'webhook_events',
  'webhook_deliveries',
  'webhook_attempts',
];

/** Reference tables: small or rarely written, read by anyone without knowing an organisation. */
export const referenceTables: readonly string[] = ['organizations', 'persons', 'feedback', 'payment_events', 'payment_objects', 'secrets', 'key_values'];

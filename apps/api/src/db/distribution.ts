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
export const referenceTables: readonly string[] = ['organizations', 'persons', 'feedback', 'payment_events', 'secrets', 'key_values'];

const byIdAlone = (where: string) => `looked up by id alone (${where}): those statements must carry the organisation before the key can lead with it`;

/**
 * Violations the schema still has, each with the work that removes it (docs/scaling.md, "What is
 * left"). The test fails on any violation not listed here and on any listed that no longer occurs.
 */
export const knownExceptions: Readonly<Record<string, string>> = {
  'auto_top_up_charges: unique auto_top_up_charges_pkey (id) without organization_id': byIdAlone(
    'process-charges.ts, charges.ts, stripe-saved-cards.ts, stripe-auto-top-up-events.ts, whose payment intents carry organization_id in metadata',
  ),
  'auto_top_up_charges: unique auto_top_up_charges_payment_intent (payment_intent_id) without organization_id':
    'becomes (organization_id, payment_intent_id): the payment intent names the organisation in its metadata',
  'checkout_sessions: unique checkout_sessions_pkey (id) without organization_id':
    'Stripe webhooks find a session by its cs_ id alone (checkout-sessions.ts findCheckout); the session carries organizationId in metadata and client_reference_id',
  'checkout_sessions: unique checkout_sessions_payment_intent (payment_intent_id) without organization_id':
    'refund and dispute events find the top-up by payment intent alone (stripe-charge-events.ts): a reference directory payment_objects (provider, id → organization_id) serves it',
};

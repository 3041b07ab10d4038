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
export const referenceTables: readonly string[] = ['organizations', 'persons', 'feedback', 'payment_events', 'payment_objects', 'secrets'];

const byIdAlone = (where: string) => `looked up by id alone (${where}): those statements must carry the organisation before the key can lead with it`;
const keyedByKey = (writer: string) =>
  `keyed by the key alone (${writer}); gains organization_id, written by the same statements, then the key and the foreign key take it`;

/**
 * Violations the schema still has, each with the work that removes it (docs/scaling.md, "What is
 * left"). The test fails on any violation not listed here and on any listed that no longer occurs.
 */
export const knownExceptions: Readonly<Record<string, string>> = {
  'key_spend: no organization_id column': keyedByKey('app.admit_calls, app.settle_calls, settlement.ts, key-store.ts'),
  'caller_spend: no organization_id column': keyedByKey('app.admit_calls, app.settle_calls, settlement.ts, key-store.ts'),
  'caller_hours: no organization_id column': keyedByKey('app.settle_calls, response-cache.ts, caller-hours.ts, key-callers.ts'),
  'rate_windows: no organization_id column':
    'its subject is `<key id>[ <address>]` (rate-windows.ts); gains organization_id and a key (organization_id, subject)',
  'publishable_keys: unique publishable_keys_pkey (id) without organization_id':
    'key_spend, caller_spend and caller_hours refer to it by id alone; it becomes (organization_id, id) once they carry the organisation',
  'publishable_keys: unique publishable_keys_value (value) without organization_id':
    'the gateway finds a key by its value alone (find-key.ts, look-up-key.ts): a reference directory key_values (value → organization_id, id) serves it and keeps values globally unique',
  'publishable_keys: unique publishable_keys_previous_value (previous_value) without organization_id':
    'as publishable_keys_value: a rolled key’s previous value goes in the same directory',
  'invitations: unique invitations_token_hash (token_hash) without organization_id':
    'accepting finds an invitation by its mailed token alone (accept-invitation.ts): the link carries the organisation and the key becomes (organization_id, token_hash)',
  'invitations: unique invitations_pkey (id) without organization_id': byIdAlone('accept-invitation.ts, resend-invitation.ts'),
  'reservations: unique reservations_pkey (id) without organization_id': byIdAlone('settlement.ts release, forwarded.ts'),
};

import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { pgArray, rowsOf } from '../metering/sql-values.js';
import { periodStart } from '../money.js';
import { emitEvent, type WebhookEventData } from '../webhooks/emit-event.js';
import { defaultAlertSettings } from './alert-settings.js';

/** A claimed delivery, named with its organisation (its key, migration 0022). */
export type ClaimedAlert = { organizationId: string; id: string };

/**
 * Organisations worth a look: those whose balance moved (a top-up, or the gateway settling usage,
 * which also moves key spend), whose settings changed, or whose keys were edited since `since`.
 * Each is a scan of a table with one narrow row per organisation or key; the history tables
 * (ledger, completions) are then read by index for these few organisations only.
 */
const changedSince = (since: Date) => sql`
  select organization_id from app.credit_balances where updated_at >= ${since}
  union select organization_id from app.alert_settings where updated_at >= ${since}
  union select organization_id from app.publishable_keys where updated_at >= ${since}`;

/**
 * Claims a low-balance alert for every organisation below its threshold, once per re-arming
 * credit: the latest positive ledger entry that left the balance at or above the threshold (read
 * backwards on the ledger's (organisation, created_at) index). An organisation that never had that
 * much credit has nothing to re-arm and gets no mail. Returns the claimed deliveries.
 */
export async function claimLowBalanceAlerts(db: Database, since: Date): Promise<ClaimedAlert[]> {
  // Each claim also tells the organisation's webhooks (balance.low), in the claim's transaction.
  return db.transaction(async (tx) => {
    const result = await tx.execute(sql`
    with claimed as (
    insert into app.alert_deliveries (id, organization_id, kind, threshold, period, attempts)
    select gen_random_uuid(), b.organization_id, 'low_balance', t.threshold, rearm.id::text, 1
    from app.credit_balances b
    left join app.alert_settings s on s.organization_id = b.organization_id
    cross join lateral (select coalesce(s.low_balance_nanos, ${defaultAlertSettings.lowBalanceNanos}) as threshold) t
    cross join lateral (
      select e.id from app.credit_entries e
      where e.organization_id = b.organization_id and e.amount_nanos > 0 and e.balance_after_nanos >= t.threshold
      order by e.created_at desc limit 1
    ) rearm
    where b.organization_id in (${changedSince(since)}) and t.threshold > 0 and b.balance_nanos < t.threshold
    on conflict on constraint alert_deliveries_once do nothing
    returning id, organization_id, threshold)
    select c.id, c.organization_id, jsonb_build_object('balanceAmount', trim_scale(b.balance_nanos / 1e9), 'thresholdAmount', trim_scale(c.threshold / 1e9)) as data
    from claimed c join app.credit_balances b on b.organization_id = c.organization_id`);
    const claimed = rowsOf<{ id: string; organization_id: string; data: WebhookEventData['balance.low'] }>(result);
    for (const row of claimed) await emitEvent(tx, { organizationId: row.organization_id, type: 'balance.low', data: row.data });
    return claimed.map((row) => ({ organizationId: row.organization_id, id: row.id }));
  });
}

/**
 * Claims a key-budget alert for every live key of a changed organisation whose spend this UTC
 * month reached one of the organisation's percentages of its budget (key_spend by primary key).
 * The period is the month, so each percentage alerts once a month.
 */
export async function claimKeyBudgetAlerts(db: Database, now: Date, since: Date): Promise<ClaimedAlert[]> {
  const month = periodStart(now);
  // Each claim also tells the organisation's webhooks (key.budget_threshold), in the claim's transaction.
  return db.transaction(async (tx) => {
    const result = await tx.execute(sql`
    with claimed as (
    insert into app.alert_deliveries (id, organization_id, kind, publishable_key_id, threshold, period, attempts)
    select gen_random_uuid(), k.organization_id, 'key_budget', k.id, p.percent, ${month.slice(0, 7)}, 1
    from app.publishable_keys k
    join app.key_spend ks on ks.organization_id = k.organization_id and ks.publishable_key_id = k.id and ks.period_start = ${month}
    left join app.alert_settings s on s.organization_id = k.organization_id
    cross join lateral unnest(coalesce(s.key_budget_percents, ${pgArray(defaultAlertSettings.keyBudgetPercents)}::integer[])) as p(percent)
    where k.organization_id in (${changedSince(since)}) and k.deleted_at is null and k.spend_limit_nanos > 0
      and ks.spent_nanos * 100 >= k.spend_limit_nanos * p.percent
    on conflict on constraint alert_deliveries_once do nothing
    returning id, organization_id, publishable_key_id, threshold)
    select c.id, c.organization_id, jsonb_build_object('keyId', k.id, 'name', k.name, 'kind', k.kind, 'percent', c.threshold,
      'spentAmount', trim_scale(ks.spent_nanos / 1e9), 'budgetAmount', trim_scale(k.spend_limit_nanos / 1e9)) as data
    from claimed c join app.publishable_keys k on k.organization_id = c.organization_id and k.id = c.publishable_key_id
    join app.key_spend ks on ks.organization_id = k.organization_id and ks.publishable_key_id = k.id and ks.period_start = ${month}`);
    const claimed = rowsOf<{ id: string; organization_id: string; data: WebhookEventData['key.budget_threshold'] }>(result);
    for (const row of claimed) await emitEvent(tx, { organizationId: row.organization_id, type: 'key.budget_threshold', data: row.data });
    return claimed.map((row) => ({ organizationId: row.organization_id, id: row.id }));
  });
}

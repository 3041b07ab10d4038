import { rolesAllowedTo } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import type { Mail, Mailer } from '@meterway/service';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../metering/sql-values.js';
import { keyBudgetMail, lowBalanceMail } from './alert-mail.js';
import type { ClaimedAlert } from './claim-alerts.js';

type DeliveryRow = {
  id: string;
  kind: 'low_balance' | 'key_budget';
  threshold: string;
  period: string;
  organization_name: string;
  recipients: string | null;
  balance: string | null;
  key_name: string | null;
  budget: string | null;
  spent: string | null;
};

/** Who is written to: the members who may add credit and manage the alerts. */
const creditRoles = sql.join(
  rolesAllowedTo.manageCredit.map((role) => sql`${role}`),
  sql`, `,
);

/** The figures are read when the mail is sent, so a retried mail tells the current state. */
async function loadDelivery(db: Database, { organizationId, id }: ClaimedAlert): Promise<DeliveryRow | undefined> {
  const result = await db.execute(sql`
    select d.id, d.kind, d.threshold::text, d.period, o.name as organization_name,
      (select string_agg(p.email, ', ' order by m.created_at, p.id) from app.memberships m join app.persons p on p.id = m.person_id
        where m.organization_id = d.organization_id and m.role in (${creditRoles})) as recipients,
      b.balance_nanos::text as balance, k.name as key_name, k.spend_limit_nanos::text as budget, ks.spent_nanos::text as spent
    from app.alert_deliveries d
    join app.organizations o on o.id = d.organization_id
    left join app.credit_balances b on b.organization_id = d.organization_id
    left join app.publishable_keys k on k.organization_id = d.organization_id and k.id = d.publishable_key_id
    left join app.key_spend ks on ks.organization_id = d.organization_id and ks.publishable_key_id = d.publishable_key_id and ks.period_start::text = d.period || '-01'
    where d.organization_id = ${organizationId} and d.id = ${id}`);
  return rowsOf<DeliveryRow>(result)[0];
}

function composeMail(row: DeliveryRow, to: string, consoleUrl: string): Mail {
  if (row.kind === 'low_balance') {
    return lowBalanceMail({
      to,
      organizationName: row.organization_name,
      balanceNanos: BigInt(row.balance ?? 0),
      thresholdNanos: BigInt(row.threshold),
      consoleUrl,
    });
  }
  return keyBudgetMail({
    to,
    keyName: row.key_name ?? 'unknown',
    percent: Number(row.threshold),
    spentNanos: BigInt(row.spent ?? 0),
    budgetNanos: BigInt(row.budget ?? 0),
    month: row.period,
    consoleUrl,
  });
}

/**
 * Sends one claimed delivery to the members of its organisation who look after its credit (the
 * roles that may manage it) and marks it sent; a failure is recorded and left unsent for a later attempt.
 */
export async function sendAlert(deps: { db: Database; mailer: Mailer; consoleUrl: string }, delivery: ClaimedAlert): Promise<void> {
  const { organizationId, id } = delivery;
  const row = await loadDelivery(deps.db, delivery);
  if (!row) return;
  try {
    if (!row.recipients) throw new Error('the organisation has no one to write to');
    await deps.mailer.send(composeMail(row, row.recipients, deps.consoleUrl));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await deps.db.execute(sql`update app.alert_deliveries set last_error = ${message.slice(0, 500)} where organization_id = ${organizationId} and id = ${id}`);
    throw error;
  }
  await deps.db.execute(sql`update app.alert_deliveries set sent_at = now(), last_error = null where organization_id = ${organizationId} and id = ${id}`);
}

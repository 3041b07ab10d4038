import type { Database } from '@meterway/db';
import type { Mailer } from '@meterway/service';
import { sql } from 'drizzle-orm';
import { pgArray, rowsOf } from '../metering/sql-values.js';
import { type ClaimedAlert, claimKeyBudgetAlerts, claimLowBalanceAlerts } from './claim-alerts.js';
import { sendAlert } from './send-alert.js';

export type AlertDeps = { db: Database; mailer: Mailer; consoleUrl: string };

/** After the first attempt, attempt n + 1 may start this long after the alert was claimed. */
const retryDelaysMs = [0, 60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000];
const maxAttempts = retryDelaysMs.length;

/**
 * Unsent deliveries whose next attempt is due (the partial index on unsent rows), each taken by
 * bumping `attempts` from the value read: of several instances only one bump matches. A send
 * still running when its next attempt falls due (over a minute) could go out twice.
 */
async function claimRetries(db: Database, now: Date): Promise<ClaimedAlert[]> {
  const due = rowsOf<{ organization_id: string; id: string; attempts: number }>(
    await db.execute(sql`
      select organization_id, id, attempts from app.alert_deliveries
      where sent_at is null and attempts < ${maxAttempts}
        and created_at <= ${now}::timestamptz - (${pgArray(retryDelaysMs)}::integer[])[attempts + 1] * interval '1 millisecond'
      order by created_at limit 50`),
  );
  const claimed: ClaimedAlert[] = [];
  for (const row of due) {
    const taken = await db.execute(sql`
      update app.alert_deliveries set attempts = attempts + 1
      where organization_id = ${row.organization_id} and id = ${row.id} and attempts = ${row.attempts} and sent_at is null returning id`);
    if (rowsOf(taken).length > 0) claimed.push({ organizationId: row.organization_id, id: row.id });
  }
  return claimed;
}

/**
 * One round of alerting: claims every newly crossed threshold of the organisations that changed
 * since `since` (all of them without it) and every retry that is due, then sends them. The
 * claims make each alert go out once however many instances run this at the same time.
 */
export async function checkAlerts(deps: AlertDeps, now: Date, since = new Date(0)): Promise<{ sent: number; failed: number }> {
  // Retries first: a delivery claimed in this round is never also due in it.
  const claimed = [
    ...(await claimRetries(deps.db, now)),
    ...(await claimLowBalanceAlerts(deps.db, since)),
    ...(await claimKeyBudgetAlerts(deps.db, now, since)),
  ];
  let failed = 0;
  for (const delivery of claimed) await sendAlert(deps, delivery).catch(() => failed++);
  return { sent: claimed.length - failed, failed };
}

import type { AlertSettings } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { eq } from 'drizzle-orm';
import { alertSettings } from '../../db/schema/index.js';
import { type Acting, actorOf, changesBetween, recordAudit } from '../audit/record-audit.js';
import { dollarsToNanos, nanosToDollars } from '../money.js';
import type { Viewer } from '../people/ensure-person.js';

/** What an organisation without a settings row gets (the table's column defaults say the same). */
export const defaultAlertSettings = { lowBalanceNanos: 5_000_000_000n, keyBudgetPercents: [50, 80, 100] };

export async function getAlertSettings(db: Database, viewer: Pick<Viewer, 'organizationId'>): Promise<AlertSettings> {
  const [row] = await db.select().from(alertSettings).where(eq(alertSettings.organizationId, viewer.organizationId));
  const settings = row ?? defaultAlertSettings;
  return { lowBalance: nanosToDollars(settings.lowBalanceNanos), keyBudgetPercents: settings.keyBudgetPercents };
}

/**
 * `updatedAt` tells the alert checker to look at this organisation again with the new thresholds.
 * The audit log records the settings that changed, before → after (a save that changes none records nothing).
 */
export async function saveAlertSettings(db: Database, viewer: Acting, input: AlertSettings, now: Date): Promise<AlertSettings> {
  const values = { lowBalanceNanos: dollarsToNanos(input.lowBalance), keyBudgetPercents: [...input.keyBudgetPercents].sort((a, b) => a - b), updatedAt: now };
  const saved = { lowBalance: input.lowBalance, keyBudgetPercents: values.keyBudgetPercents };
  return db.transaction(async (tx) => {
    // Locked (when there is a row yet), so the "before" recorded is exactly what this save replaces.
    const [row] = await tx.select().from(alertSettings).where(eq(alertSettings.organizationId, viewer.organizationId)).for('update');
    const before = row ?? defaultAlertSettings;
    await tx
      .insert(alertSettings)
      .values({ organizationId: viewer.organizationId, ...values })
      .onConflictDoUpdate({ target: alertSettings.organizationId, set: values });
    const changes = changesBetween(
      { lowBalance: nanosToDollars(before.lowBalanceNanos), keyBudgetPercents: before.keyBudgetPercents },
      { lowBalance: nanosToDollars(values.lowBalanceNanos), keyBudgetPercents: values.keyBudgetPercents },
    );
    if (Object.keys(changes).length > 0) {
      await recordAudit(tx, { organizationId: viewer.organizationId, actor: actorOf(viewer), action: 'alerts.updated', target: 'alert settings', changes });
    }
    return saved;
  });
}

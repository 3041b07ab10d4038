import { type AutoTopUp, type AutoTopUpInput, defaultAutoTopUp } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq, gte, ne, sql } from 'drizzle-orm';
import { autoTopUpCharges, autoTopUps, creditBalances } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { type Acting, actorOf, changesBetween, recordAudit } from '../audit/record-audit.js';
import { dollarsText } from '../credit/record-credit-audit.js';
import { rowsOf } from '../metering/sql-values.js';
import { dollarsToNanos, nanosToDollars } from '../money.js';

type Settings = typeof autoTopUps.$inferSelect;

const startOfMonth = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));

/** This UTC month's charges that were not declined (pending ones too), as the monthly cap counts them. */
async function chargedThisMonthNanos(db: Database, organizationId: string, now: Date): Promise<bigint> {
  const [row] = await db
    .select({ total: sql<string>`coalesce(sum(${autoTopUpCharges.amountNanos}), 0)` })
    .from(autoTopUpCharges)
    .where(and(eq(autoTopUpCharges.organizationId, organizationId), ne(autoTopUpCharges.status, 'failed'), gte(autoTopUpCharges.createdAt, startOfMonth(now))));
  return BigInt(row?.total ?? 0);
}

const amountsOf = (settings: Pick<Settings, 'enabled' | 'thresholdNanos' | 'topUpNanos' | 'monthlyCapNanos'>) => ({
  enabled: settings.enabled,
  thresholdAmount: nanosToDollars(settings.thresholdNanos),
  topUpAmount: nanosToDollars(settings.topUpNanos),
  monthlyCapAmount: nanosToDollars(settings.monthlyCapNanos),
});

export async function getAutoTopUp(db: Database, viewer: { organizationId: string }, now: Date): Promise<AutoTopUp> {
  const [row] = await db.select().from(autoTopUps).where(eq(autoTopUps.organizationId, viewer.organizationId));
  const chargedNanos = await chargedThisMonthNanos(db, viewer.organizationId, now);
  const charged = nanosToDollars(chargedNanos);
  if (!row) return { enabled: false, ...defaultAutoTopUp, chargedThisMonthAmount: charged, paymentMethod: null, disabledReason: null, heldBackReason: null };
  const held = (await autoTopUpState(db, viewer.organizationId, now)) === 'monthly_cap';
  return {
    ...amountsOf(row),
    chargedThisMonthAmount: charged,
    paymentMethod: row.paymentMethodId && row.cardBrand && row.cardLast4 ? { brand: row.cardBrand, last4: row.cardLast4 } : null,
    disabledReason: row.disabledReason,
    heldBackReason: held
      ? `The balance is below ${dollarsText(row.thresholdNanos)}, but another ${dollarsText(row.topUpNanos)} would take this month's charges ` +
        `(${dollarsText(chargedNanos)}) past the monthly cap of ${dollarsText(row.monthlyCapNanos)}. Raise the cap or add credit.`
      : null,
  };
}

/** Where auto top-up stands (app.auto_top_up_state): 'due', or what holds a charge back. */
async function autoTopUpState(db: Database, organizationId: string, now: Date): Promise<string> {
  const result = await db.execute(sql`select app.auto_top_up_state(${organizationId}, ${now.toISOString()}::timestamptz) as state`);
  return rowsOf<{ state: string }>(result)[0]?.state ?? 'off';
}

/**
 * Saves the settings under the balance row's lock (settlement takes it to claim a charge), then the
 * settings row's. Turning on needs a saved card and clears why it turned itself off. On, the
 * threshold is kept on the balance row for settlement, and a charge is claimed at once if one is
 * due (app.auto_top_up_state: below the threshold, none open, within the cap); off, a charge not
 * yet sent is not made. The audit log records the settings that changed.
 */
export async function saveAutoTopUp(db: Database, viewer: Acting, input: AutoTopUpInput, now: Date): Promise<AutoTopUp> {
  const values = {
    enabled: input.enabled,
    thresholdNanos: dollarsToNanos(input.thresholdAmount),
    topUpNanos: dollarsToNanos(input.topUpAmount),
    monthlyCapNanos: dollarsToNanos(input.monthlyCapAmount),
  };
  const { organizationId } = viewer;
  await db.transaction(async (tx) => {
    await tx.insert(creditBalances).values({ organizationId }).onConflictDoNothing();
    await tx
      .select({ organizationId: creditBalances.organizationId })
      .from(creditBalances)
      .where(eq(creditBalances.organizationId, organizationId))
      .for('update');
    const [row] = await tx.select().from(autoTopUps).where(eq(autoTopUps.organizationId, organizationId)).for('update');
    if (input.enabled && !row?.paymentMethodId) throw new AppError('Conflict', 'Save a card before turning on auto top-up.');
    const disabledReason = input.enabled ? null : (row?.disabledReason ?? null);
    await tx
      .insert(autoTopUps)
      .values({ organizationId, ...values, disabledReason, updatedAt: now })
      .onConflictDoUpdate({ target: autoTopUps.organizationId, set: { ...values, disabledReason, updatedAt: now } });
    await tx
      .update(creditBalances)
      .set({ autoTopUpBelowNanos: input.enabled ? values.thresholdNanos : null, updatedAt: now })
      .where(eq(creditBalances.organizationId, organizationId));
    if (input.enabled) {
      await tx.execute(sql`select app.claim_auto_top_up(${organizationId}, ${now.toISOString()}::timestamptz)`);
    } else {
      // A charge not yet sent is not made (one already with the provider finishes). Nobody is mailed about it.
      await tx
        .update(autoTopUpCharges)
        .set({ status: 'failed', failureMessage: 'Auto top-up was turned off before the charge was made.', failureMailedAt: now, updatedAt: now })
        .where(and(eq(autoTopUpCharges.organizationId, organizationId), eq(autoTopUpCharges.status, 'pending')));
    }

    const changes = changesBetween(amountsOf(row ?? { enabled: false, ...defaultNanos() }), amountsOf(values));
    if (Object.keys(changes).length > 0) {
      await recordAudit(tx, { organizationId, actor: actorOf(viewer), action: 'auto_top_up.updated', target: 'auto top-up', changes });
    }
  });
  return getAutoTopUp(db, viewer, now);
}

const defaultNanos = () => ({
  thresholdNanos: dollarsToNanos(defaultAutoTopUp.thresholdAmount),
  topUpNanos: dollarsToNanos(defaultAutoTopUp.topUpAmount),
  monthlyCapNanos: dollarsToNanos(defaultAutoTopUp.monthlyCapAmount),
});

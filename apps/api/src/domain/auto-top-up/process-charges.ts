import type { Database } from '@meterway/db';
import type { Mailer } from '@meterway/service';
import { eq, sql } from 'drizzle-orm';
import { autoTopUpCharges, autoTopUps } from '../../db/schema/index.js';
import { rowsOf } from '../metering/sql-values.js';
import type { PaymentProvider } from '../payments/payment-provider.js';
import { chargeByKey, markChargeFailed, markChargeSucceeded, recordChargePayment } from './charges.js';
import { mailChargeFailures } from './mail-charge-failures.js';

export type AutoTopUpDeps = { db: Database; payments: PaymentProvider; mailer: Mailer; consoleUrl: string };

/** A charge sent this long ago without an answer (its instance stopped, say) is sent again, as the same payment. */
const stuckAfterMs = 3 * 60_000;
const batchSize = 20;

type Claimed = { id: string; organization_id: string; provider: string; amount_nanos: string };

/**
 * Claims the charges due where no settlement or settings save did (the balance fell below the
 * threshold by a refund or an expiry, the month's cap was lifted by a new month or a new card was
 * saved): each organisation with auto top-up on whose charge is due, under its balance row's lock as
 * every claim is made. Those another instance is claiming for are skipped.
 */
async function claimDueCharges(db: Database, now: Date): Promise<void> {
  const at = now.toISOString();
  const due = rowsOf<{ organization_id: string }>(
    await db.execute(sql`
      select organization_id from app.credit_balances
      where auto_top_up_below_nanos is not null and balance_nanos < auto_top_up_below_nanos
        and app.auto_top_up_state(organization_id, ${at}::timestamptz) = 'due'
      limit ${batchSize}`),
  );
  for (const { organization_id: organizationId } of due) {
    await db.transaction(async (tx) => {
      const locked = await tx.execute(sql`select 1 from app.credit_balances where organization_id = ${organizationId} for update skip locked`);
      if (rowsOf(locked).length > 0) await tx.execute(sql`select app.claim_auto_top_up(${organizationId}, ${at}::timestamptz)`);
    });
  }
}

/**
 * Open charges become processing, taken once across instances (SKIP LOCKED): the pending ones, and
 * those processing too long.
 */
async function claimCharges(db: Database, now: Date): Promise<Claimed[]> {
  const stuckBefore = new Date(now.getTime() - stuckAfterMs);
  const result = await db.execute(sql`
    update app.auto_top_up_charges as c set status = 'processing', updated_at = ${now.toISOString()}::timestamptz
    from (
      select organization_id, id from app.auto_top_up_charges
      where (status = 'pending' or (status = 'processing' and updated_at < ${stuckBefore.toISOString()}::timestamptz))
      order by created_at limit ${batchSize}
      for update skip locked
    ) as picked
    where c.organization_id = picked.organization_id and c.id = picked.id
    returning c.id, c.organization_id, c.provider, c.amount_nanos::text`);
  return rowsOf<Claimed>(result);
}

/** Charges one claimed charge with the saved card; a provider still working on it answers by webhook later. */
async function charge(deps: AutoTopUpDeps, claimed: Claimed, now: Date): Promise<'succeeded' | 'failed' | 'processing'> {
  const key = { organizationId: claimed.organization_id, chargeId: claimed.id };
  const [card] = await deps.db
    .select({ paymentMethodId: autoTopUps.paymentMethodId })
    .from(autoTopUps)
    .where(eq(autoTopUps.organizationId, claimed.organization_id));
  if (!card?.paymentMethodId) {
    await markChargeFailed(deps.db, { ...key, message: 'There is no saved card to charge. Save a card again.', now });
    return 'failed';
  }
  // A card saved with another provider (the sandbox's, before Stripe was configured) cannot be charged here.
  if (claimed.provider !== deps.payments.name) {
    await markChargeFailed(deps.db, { ...key, message: 'The saved card was saved with another payment provider. Save a card again.', now });
    return 'failed';
  }
  const outcome = await deps.payments.chargeSavedCard({
    chargeId: claimed.id,
    organizationId: claimed.organization_id,
    amountNanos: BigInt(claimed.amount_nanos),
    paymentMethodId: card.paymentMethodId,
  });
  if (outcome.outcome === 'succeeded') {
    await markChargeSucceeded(deps.db, { ...key, paymentIntentId: outcome.paymentIntentId, now });
  } else if (outcome.outcome === 'failed') {
    await markChargeFailed(deps.db, {
      ...key,
      message: outcome.message,
      now,
      ...(outcome.paymentIntentId ? { paymentIntentId: outcome.paymentIntentId } : {}),
    });
  } else {
    // The charge knows its payment (a resend reads it back), recorded in payment_objects with it.
    await deps.db.transaction(async (tx) => {
      const [updated] = await tx
        .update(autoTopUpCharges)
        .set({ paymentIntentId: sql`coalesce(${autoTopUpCharges.paymentIntentId}, ${outcome.paymentIntentId})` })
        .where(chargeByKey(key))
        .returning();
      if (updated) await recordChargePayment(tx, updated);
    });
  }
  return outcome.outcome;
}

/**
 * One round of the auto top-up worker: claims the charges due, sends the open charges to the
 * provider and applies what it answers at once, then mails the failures not yet mailed. A charge whose call threw stays
 * processing and is sent again (idempotently, by its id) once it counts as stuck.
 */
export async function processCharges(deps: AutoTopUpDeps, now: Date): Promise<{ succeeded: number; failed: number; errors: unknown[]; mailed: number }> {
  const counts = { succeeded: 0, failed: 0, errors: [] as unknown[] };
  await claimDueCharges(deps.db, now);
  for (const claimed of await claimCharges(deps.db, now)) {
    try {
      const outcome = await charge(deps, claimed, now);
      if (outcome !== 'processing') counts[outcome] += 1;
    } catch (error) {
      counts.errors.push(error);
    }
  }
  const mail = await mailChargeFailures(deps, now);
  return { ...counts, errors: [...counts.errors, ...mail.errors], mailed: mail.mailed };
}

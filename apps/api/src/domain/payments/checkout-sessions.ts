import type { Database } from '@meterway/db';
import { and, desc, eq, lt, ne } from 'drizzle-orm';
import type { CheckoutOutcome } from '@meterway/contracts';
import { type CheckoutStatus, checkoutSessions, creditEntries, persons } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { type Actor, systemActor } from '../audit/record-audit.js';
import { postEntry } from '../credit/ledger.js';
import { recordCreditAudit } from '../credit/record-credit-audit.js';
import { nanosToDollars } from '../money.js';
import { recordPaymentObject } from './payment-objects.js';

export type CheckoutSession = typeof checkoutSessions.$inferSelect;

/** A checkout session is named by its organisation and its id (the table's key, migration 0025). */
export type CheckoutKey = { organizationId: string; id: string };

const byKey = (key: CheckoutKey) => and(eq(checkoutSessions.organizationId, key.organizationId), eq(checkoutSessions.id, key.id));

export async function recordCheckout(
  db: Database,
  session: {
    id: string;
    organizationId: string;
    provider: 'stripe' | 'sandbox';
    mode?: 'payment' | 'setup';
    creditNanos: bigint;
    taxNanos: bigint;
    expiresAt: Date;
    clientSecretHash?: string;
    startedBy?: string;
  },
) {
  await db.insert(checkoutSessions).values({ ...session, clientSecretHash: session.clientSecretHash ?? null, startedBy: session.startedBy ?? null });
}

/** The session of this organisation with this id; none when the id is another organisation's (or no one's). */
export async function findCheckout(db: Database, key: CheckoutKey): Promise<CheckoutSession | undefined> {
  const [session] = await db.select().from(checkoutSessions).where(byKey(key)).limit(1);
  return session;
}

/**
 * Payment confirmed: the session becomes SUCCEEDED and the organisation is credited, once. This
 * wins over an earlier FAILED or EXPIRED (a paid completion is authoritative, whatever order the
 * provider's notifications arrive in); a session credits at most once, by its ledger reference.
 * `creditNanos` is what the provider says was paid for (Stripe's subtotal), when it says;
 * `paymentIntentId` the payment a later refund or dispute names (Stripe's payment_intent), recorded
 * in payment_objects with the session, where those find the organisation;
 * `receiptUrl` the provider's receipt of the payment (Stripe's charge receipt_url). The
 * audit log records the credit added, by the person who started the top-up.
 */
export async function markSucceeded(
  db: Database,
  key: CheckoutKey,
  now: Date,
  paid: { creditNanos?: bigint; paymentIntentId?: string; receiptUrl?: string } = {},
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [session] = await tx
      .update(checkoutSessions)
      .set({
        status: 'SUCCEEDED',
        updatedAt: now,
        completedAt: now,
        failureMessage: null,
        ...(paid.creditNanos !== undefined ? { creditNanos: paid.creditNanos } : {}),
        ...(paid.paymentIntentId !== undefined ? { paymentIntentId: paid.paymentIntentId } : {}),
        ...(paid.receiptUrl !== undefined ? { receiptUrl: paid.receiptUrl } : {}),
      })
      .where(and(byKey(key), ne(checkoutSessions.status, 'SUCCEEDED')))
      .returning();
    if (!session) return false;
    if (session.paymentIntentId) {
      await recordPaymentObject(tx, { provider: session.provider, id: session.paymentIntentId, organizationId: session.organizationId });
    }
    const posted = await postEntry(tx, { organizationId: session.organizationId, kind: 'top_up', amountNanos: session.creditNanos, reference: session.id });
    if (posted.posted) {
      await recordCreditAudit(tx, {
        organizationId: session.organizationId,
        actor: await starterOf(tx, session.startedBy),
        action: 'credit.added',
        amountNanos: session.creditNanos,
        posted,
        details: { checkoutSessionId: session.id },
      });
    }
    return true;
  });
}

/** The person who started a top-up, by their e-mail now; the system for a top-up from before that was kept. */
async function starterOf(tx: Database, personId: string | null): Promise<Actor> {
  if (!personId) return systemActor;
  const [person] = await tx.select({ email: persons.email }).from(persons).where(eq(persons.id, personId));
  return person ? { personId, email: person.email } : systemActor;
}

/** A terminal failure (declined, expired): only an open session moves, so nothing undoes a success. */
export async function markClosed(
  db: Database,
  key: CheckoutKey,
  status: Exclude<CheckoutStatus, 'IN_PROGRESS' | 'SUCCEEDED'>,
  now: Date,
  failureMessage?: string,
) {
  const updated = await db
    .update(checkoutSessions)
    .set({ status, updatedAt: now, completedAt: now, failureMessage: failureMessage ?? null })
    .where(and(byKey(key), eq(checkoutSessions.status, 'IN_PROGRESS')))
    .returning({ id: checkoutSessions.id });
  return updated.length > 0;
}

/** Open sessions past their expiry become EXPIRED (the sandbox's sweeper; Stripe sends its own event). */
export async function expireOverdue(db: Database, now: Date, provider: 'stripe' | 'sandbox') {
  const expired = await db
    .update(checkoutSessions)
    .set({ status: 'EXPIRED', updatedAt: now, completedAt: now })
    .where(and(eq(checkoutSessions.status, 'IN_PROGRESS'), eq(checkoutSessions.provider, provider), lt(checkoutSessions.expiresAt, now)))
    .returning({ id: checkoutSessions.id });
  return expired.length;
}

/** The organisation's recent checkout sessions for /bff/me, newest first. */
export async function recentCheckouts(db: Database, organizationId: string, limit = 50) {
  return db
    .select({ checkoutSessionId: checkoutSessions.id, status: checkoutSessions.status })
    .from(checkoutSessions)
    .where(eq(checkoutSessions.organizationId, organizationId))
    .orderBy(desc(checkoutSessions.createdAt))
    .limit(limit);
}

/**
 * What one of the organisation's top-ups came to: its status, the credit it bought, and the part of
 * that credit which paid what the organisation owed first (the owed_payment entry its top_up entry
 * made). NotFound for a setup session or another organisation's.
 */
export async function checkoutOutcome(db: Database, key: CheckoutKey): Promise<CheckoutOutcome> {
  const session = await findCheckout(db, key);
  if (!session || session.mode !== 'payment') throw new AppError('NotFound', 'Unknown top-up.');
  const entryOf = (kind: 'top_up' | 'owed_payment', reference: string) =>
    db
      .select({ id: creditEntries.id, amountNanos: creditEntries.amountNanos })
      .from(creditEntries)
      .where(and(eq(creditEntries.organizationId, key.organizationId), eq(creditEntries.kind, kind), eq(creditEntries.reference, reference)));
  const [credited] = session.status === 'SUCCEEDED' ? await entryOf('top_up', session.id) : [];
  const [debtPaid] = credited ? await entryOf('owed_payment', credited.id) : [];
  return {
    checkoutSessionId: session.id,
    status: session.status,
    creditAmount: nanosToDollars(session.creditNanos),
    owedPaidAmount: debtPaid ? nanosToDollars(-debtPaid.amountNanos) : 0,
  };
}

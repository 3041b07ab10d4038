import type { Database } from '@meterway/db';
import { and, desc, eq, lt, ne } from 'drizzle-orm';
import { type CheckoutStatus, checkoutSessions } from '../../db/schema/index.js';
import { postEntry } from '../credit/ledger.js';

export type CheckoutSession = typeof checkoutSessions.$inferSelect;

export async function recordCheckout(
  db: Database,
  session: {
    id: string;
    organizationId: string;
    provider: 'stripe' | 'sandbox';
    creditNanos: bigint;
    taxNanos: bigint;
    expiresAt: Date;
    clientSecretHash?: string;
  },
) {
  await db.insert(checkoutSessions).values({ ...session, clientSecretHash: session.clientSecretHash ?? null });
}

export async function findCheckout(db: Database, id: string): Promise<CheckoutSession | undefined> {
  const [session] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, id)).limit(1);
  return session;
}

/**
 * Payment confirmed: the session becomes SUCCEEDED and the organisation is credited, once. This
 * wins over an earlier FAILED or EXPIRED (a paid completion is authoritative, whatever order the
 * provider's notifications arrive in); a session credits at most once, by its ledger reference.
 * `creditNanos` is what the provider says was paid for (Stripe's subtotal), when it says;
 * `paymentIntentId` the payment a later refund or dispute names (Stripe's payment_intent).
 */
export async function markSucceeded(db: Database, id: string, now: Date, paid: { creditNanos?: bigint; paymentIntentId?: string } = {}): Promise<boolean> {
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
      })
      .where(and(eq(checkoutSessions.id, id), ne(checkoutSessions.status, 'SUCCEEDED')))
      .returning();
    if (!session) return false;
    await postEntry(tx, { organizationId: session.organizationId, kind: 'top_up', amountNanos: session.creditNanos, reference: session.id });
    return true;
  });
}

/** A terminal failure (declined, expired): only an open session moves, so nothing undoes a success. */
export async function markClosed(db: Database, id: string, status: Exclude<CheckoutStatus, 'IN_PROGRESS' | 'SUCCEEDED'>, now: Date, failureMessage?: string) {
  const updated = await db
    .update(checkoutSessions)
    .set({ status, updatedAt: now, completedAt: now, failureMessage: failureMessage ?? null })
    .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.status, 'IN_PROGRESS')))
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

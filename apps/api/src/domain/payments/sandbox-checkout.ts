import { timingSafeEqual } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { checkoutSessions } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { nanosToDollars } from '../money.js';
import { expireOverdue, findCheckout, markClosed, markSucceeded, type CheckoutSession } from './checkout-sessions.js';
import { expiryPassed, sandboxCard } from './sandbox-cards.js';
import { hashSecret } from './sandbox-provider.js';

/** The checkout session behind a sandbox client secret; a wrong secret is answered as unknown. */
export async function sandboxSession(db: Database, id: string, clientSecret: string): Promise<CheckoutSession> {
  const session = await findCheckout(db, id);
  const expected = Buffer.from(session?.clientSecretHash ?? '');
  const given = Buffer.from(hashSecret(clientSecret));
  if (!session || session.provider !== 'sandbox' || expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new AppError('NotFound', 'Unknown checkout session.');
  }
  return session;
}

export function sandboxSummary(session: CheckoutSession) {
  return {
    checkoutSessionId: session.id,
    status: session.status,
    currency: 'usd' as const,
    credit: nanosToDollars(session.creditNanos),
    tax: nanosToDollars(session.taxNanos),
    total: nanosToDollars(session.creditNanos + session.taxNanos),
    expiresAt: session.expiresAt.toISOString(),
    testMode: true as const,
  };
}

/**
 * Takes the card and records its outcome; the outcome is applied a moment later, as a provider's
 * webhook would apply it, so the console sees IN_PROGRESS first, then the result.
 */
export async function confirmSandboxCheckout(
  db: Database,
  input: { id: string; clientSecret: string; cardNumber: string; expiry: string; now: Date },
): Promise<void> {
  const session = await sandboxSession(db, input.id, input.clientSecret);
  if (session.status !== 'IN_PROGRESS' || session.expiresAt.getTime() <= input.now.getTime()) {
    throw new AppError('Conflict', 'This checkout session is no longer open. Start a new top-up.');
  }
  if (session.pendingOutcome) throw new AppError('Conflict', 'This payment is already being processed.');
  const card = sandboxCard(input.cardNumber);
  if (card.outcome === 'invalid') throw new AppError('BadRequest', card.message, { errors: [{ field: 'cardNumber', message: card.message }] });
  const outcome = expiryPassed(input.expiry, input.now) ? 'decline:Your card has expired.' : card.outcome === 'succeed' ? 'succeed' : `decline:${card.message}`;
  const claimed = await db
    .update(checkoutSessions)
    .set({ pendingOutcome: outcome, updatedAt: input.now })
    .where(and(eq(checkoutSessions.id, session.id), isNull(checkoutSessions.pendingOutcome)))
    .returning({ id: checkoutSessions.id });
  if (claimed.length === 0) throw new AppError('Conflict', 'This payment is already being processed.');
}

/** Applies recorded card outcomes (SUCCEEDED and credited, or FAILED) and expires overdue sessions. */
export async function settleSandbox(db: Database, now: Date): Promise<void> {
  const pending = await db
    .select({ id: checkoutSessions.id, outcome: checkoutSessions.pendingOutcome })
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.provider, 'sandbox'), eq(checkoutSessions.status, 'IN_PROGRESS'), isNotNull(checkoutSessions.pendingOutcome)));
  for (const { id, outcome } of pending) {
    if (outcome === 'succeed') await markSucceeded(db, id, now);
    else await markClosed(db, id, 'FAILED', now, outcome?.replace(/^decline:/, ''));
  }
  await expireOverdue(db, now, 'sandbox');
}

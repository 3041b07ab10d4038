import { timingSafeEqual } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, eq, isNull } from 'drizzle-orm';
import { checkoutSessions } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { nanosToDollars } from '../money.js';
import { expireOverdue, markSucceeded, type CheckoutSession } from './checkout-sessions.js';
import { saveCard } from '../auto-top-up/save-card.js';
import { pastExpiryMessage, sandboxCard, sandboxCardToSave } from './sandbox-cards.js';
import { hashSecret, sandboxPaymentMethodId } from './sandbox-provider.js';

/** The one outcome the sandbox records; a refused card never gets this far. */
const succeeded = 'succeed';

/**
 * The checkout session behind a sandbox client secret; a wrong secret is answered as unknown. The
 * secret is the credential and the page knows no organisation, so this one read finds the session by
 * its id alone (the sandbox's random cs_sandbox_…; on Citus a read of every node); what it then
 * changes is named with the organisation found.
 */
export async function sandboxSession(db: Database, id: string, clientSecret: string): Promise<CheckoutSession> {
  const [session] = await db
    .select()
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.id, id), eq(checkoutSessions.provider, 'sandbox')))
    .limit(1);
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
    mode: session.mode,
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
 * Takes the card. A refused card is answered at once and leaves the session open for another
 * card, as Stripe's confirm() does; a card that goes through is recorded and applied a moment
 * later, as a provider's webhook would apply it, so the console sees IN_PROGRESS first.
 * `errors` names the field the person has to change.
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
  const card = session.mode === 'setup' ? sandboxCardToSave(input.cardNumber) : sandboxCard(input.cardNumber);
  if (card.outcome === 'invalid') throw new AppError('BadRequest', card.message, { errors: [{ field: 'cardNumber', message: card.message }] });
  const pastExpiry = pastExpiryMessage(input.expiry, input.now);
  if (pastExpiry) throw new AppError('BadRequest', pastExpiry, { errors: [{ field: 'expiry', message: pastExpiry }] });
  if (card.outcome === 'save') {
    // Nothing is charged, so nothing waits for a webhook: the card is saved now.
    const { brand, last4 } = card;
    const saved = await saveCard(db, {
      organizationId: session.organizationId,
      checkoutSessionId: session.id,
      paymentMethodId: sandboxPaymentMethodId(card.offSession),
      brand,
      last4,
      now: input.now,
    });
    if (!saved) throw new AppError('Conflict', 'This checkout session is no longer open. Start a new top-up.');
    return;
  }
  if (card.outcome === 'decline') {
    // In the sandbox a declining test card always declines: only another card helps.
    throw new AppError('PaymentRequired', card.message, { declineCode: card.code, errors: [{ field: 'cardNumber', message: card.message }] });
  }
  const claimed = await db
    .update(checkoutSessions)
    .set({ pendingOutcome: succeeded, updatedAt: input.now })
    .where(and(eq(checkoutSessions.organizationId, session.organizationId), eq(checkoutSessions.id, session.id), isNull(checkoutSessions.pendingOutcome)))
    .returning({ id: checkoutSessions.id });
  if (claimed.length === 0) throw new AppError('Conflict', 'This payment is already being processed.');
}

/** Applies recorded payments (SUCCEEDED and credited) and expires overdue sessions. */
export async function settleSandbox(db: Database, now: Date): Promise<void> {
  const paid = await db
    .select({ organizationId: checkoutSessions.organizationId, id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.provider, 'sandbox'), eq(checkoutSessions.status, 'IN_PROGRESS'), eq(checkoutSessions.pendingOutcome, succeeded)));
  for (const key of paid) await markSucceeded(db, key, now);
  await expireOverdue(db, now, 'sandbox');
}

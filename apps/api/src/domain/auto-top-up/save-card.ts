import { defaultAutoTopUp } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq, ne } from 'drizzle-orm';
import { autoTopUps, checkoutSessions, persons } from '../../db/schema/index.js';
import { type Actor, recordAudit, systemActor } from '../audit/record-audit.js';
import { dollarsToNanos } from '../money.js';

/**
 * A setup session succeeded: the card is saved on the organisation's auto top-up, with the
 * session's provider, replacing any card before it (the settings start as the defaults, off, when
 * there were none). A reason auto top-up turned itself off stays until someone turns it on again.
 * False when the session is not an open or failed setup session (a replay saves nothing twice).
 */
export async function saveCard(
  db: Database,
  input: { organizationId: string; checkoutSessionId: string; paymentMethodId: string; brand: string; last4: string; now: Date },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [session] = await tx
      .update(checkoutSessions)
      .set({ status: 'SUCCEEDED', updatedAt: input.now, completedAt: input.now, failureMessage: null })
      .where(
        and(
          eq(checkoutSessions.organizationId, input.organizationId),
          eq(checkoutSessions.id, input.checkoutSessionId),
          eq(checkoutSessions.mode, 'setup'),
          ne(checkoutSessions.status, 'SUCCEEDED'),
        ),
      )
      .returning();
    if (!session) return false;
    const card = {
      provider: session.provider,
      paymentMethodId: input.paymentMethodId,
      cardBrand: input.brand,
      cardLast4: input.last4,
      updatedAt: input.now,
    };
    await tx
      .insert(autoTopUps)
      .values({
        organizationId: session.organizationId,
        thresholdNanos: dollarsToNanos(defaultAutoTopUp.thresholdAmount),
        topUpNanos: dollarsToNanos(defaultAutoTopUp.topUpAmount),
        monthlyCapNanos: dollarsToNanos(defaultAutoTopUp.monthlyCapAmount),
        ...card,
      })
      .onConflictDoUpdate({ target: autoTopUps.organizationId, set: card });
    await recordAudit(tx, {
      organizationId: session.organizationId,
      actor: await starterOf(tx, session.startedBy),
      action: 'auto_top_up.card_saved',
      target: `${input.brand} •••• ${input.last4}`,
    });
    return true;
  });
}

async function starterOf(tx: Database, personId: string | null): Promise<Actor> {
  if (!personId) return systemActor;
  const [person] = await tx.select({ email: persons.email }).from(persons).where(eq(persons.id, personId));
  return person ? { personId, email: person.email } : systemActor;
}

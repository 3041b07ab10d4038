import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import type Stripe from 'stripe';
import { paymentEvents } from '../../db/schema/index.js';

/** Whether this event id was applied before (a cheap early answer for redeliveries; recordEvent decides). */
export async function alreadyHandled(db: Database, eventId: string): Promise<boolean> {
  const rows = await db
    .select({ id: paymentEvents.id })
    .from(paymentEvents)
    .where(and(eq(paymentEvents.provider, 'stripe'), eq(paymentEvents.id, eventId)))
    .limit(1);
  return rows.length > 0;
}

/**
 * Records the event in the transaction that applies it; false when another delivery of it got
 * there first (then the caller changes nothing), so a crash before commit redelivers cleanly.
 */
export async function recordEvent(tx: Database, event: Stripe.Event): Promise<boolean> {
  const [fresh] = await tx
    .insert(paymentEvents)
    .values({ provider: 'stripe', id: event.id, type: event.type })
    .onConflictDoNothing()
    .returning({ id: paymentEvents.id });
  return fresh !== undefined;
}

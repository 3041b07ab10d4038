import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import { courierMessages } from '../db/schema/courier.js';

export type CourierMessage = typeof courierMessages.$inferSelect;
type QueuedMail = { to: string; template?: string | undefined; subject: string; text: string; html: string };

/** How long a claimed message is left to its sender before another instance may take it. */
const claimLeaseMs = 2 * 60 * 1000;

export async function enqueueMessage(db: Database, mail: QueuedMail, now: Date): Promise<string> {
  const id = randomUUID();
  await db.insert(courierMessages).values({
    id,
    recipient: mail.to,
    template: mail.template ?? 'other',
    subject: mail.subject,
    textBody: mail.text,
    htmlBody: mail.html,
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

/** Takes up to `limit` due messages; SKIP LOCKED and the lease keep two instances off the same one. */
export async function claimDueMessages(db: Database, now: Date, limit: number): Promise<CourierMessage[]> {
  const due = db
    .select({ id: courierMessages.id })
    .from(courierMessages)
    .where(and(eq(courierMessages.status, 'queued'), lte(courierMessages.nextAttemptAt, now)))
    .orderBy(asc(courierMessages.nextAttemptAt))
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(courierMessages)
    .set({ nextAttemptAt: new Date(now.getTime() + claimLeaseMs) })
    .where(inArray(courierMessages.id, due))
    .returning();
}

/** Sent or abandoned: the bodies, which may hold a code or a link, are not kept. */
const finished = { textBody: '', htmlBody: '' };

export async function markSent(db: Database, message: CourierMessage, now: Date): Promise<void> {
  await db
    .update(courierMessages)
    .set({ ...finished, status: 'sent', sendCount: message.sendCount + 1, lastError: null, updatedAt: now })
    .where(eq(courierMessages.id, message.id));
}

export async function markFailed(db: Database, message: CourierMessage, input: { error: string; retryAt: Date | undefined; now: Date }): Promise<void> {
  await db
    .update(courierMessages)
    .set({
      ...(input.retryAt ? { nextAttemptAt: input.retryAt } : { ...finished, status: 'abandoned' as const }),
      sendCount: message.sendCount + 1,
      lastError: input.error,
      updatedAt: input.now,
    })
    .where(eq(courierMessages.id, message.id));
}

import type { Database } from '@meterway/db';
import { and, asc, eq, gt, inArray } from 'drizzle-orm';
import { auditEntries, organizations } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';

/** Invitation mails an organisation may send in 24 hours: few while it is new, more once it has been around (issue #53). */
export const invitationsPerDay = { new: 10, established: 100 } as const;
const newForMs = 7 * 86_400_000;
const dayMs = 86_400_000;

/**
 * Refuses an invitation mail (a new one or a resend) past the organisation's cap for the last 24
 * hours, with when the next may go: an organisation's name goes out in each, to any address, so a
 * new account cannot turn Meterway's mail into a relay. The mails are counted from the audit log,
 * which records each; call it in the transaction that records the next one.
 */
export async function checkInvitationQuota(tx: Database, organizationId: string, now: Date): Promise<void> {
  const [organization] = await tx.select({ createdAt: organizations.createdAt }).from(organizations).where(eq(organizations.id, organizationId));
  const young = !organization || now.getTime() - organization.createdAt.getTime() < newForMs;
  const limit = young ? invitationsPerDay.new : invitationsPerDay.established;
  const sent = await tx
    .select({ createdAt: auditEntries.createdAt })
    .from(auditEntries)
    .where(
      and(
        eq(auditEntries.organizationId, organizationId),
        inArray(auditEntries.action, ['member.invited', 'member.invitation_resent']),
        gt(auditEntries.createdAt, new Date(now.getTime() - dayMs)),
      ),
    )
    .orderBy(asc(auditEntries.createdAt))
    .limit(limit);
  const oldest = sent[0];
  if (sent.length < limit || !oldest) return;
  const nextAt = new Date(oldest.createdAt.getTime() + dayMs);
  const when = `${nextAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  throw new AppError(
    'TooManyRequests',
    `This organisation has sent ${limit} invitations in the last 24 hours, the most it may${young ? ' in its first week' : ''}. The next can be sent from ${when}.`,
    { retryAfter: Math.max(1, Math.ceil((nextAt.getTime() - now.getTime()) / 1000)) },
  );
}

import type { Invitation } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import { invitations } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { actorOf, recordAudit } from '../audit/record-audit.js';
import type { Viewer } from '../people/ensure-person.js';
import { type InvitationMailDeps, sendInvitationMail } from './invitation-mail.js';
import { checkInvitationQuota } from './invitation-quota.js';
import { invitationExpiry, newInvitationToken, noSuchInvitation, toInvitation } from './invitation-rows.js';
import { lockMembers, managerAmong } from './locked-members.js';

/**
 * Mails an invitation again with a new link and a new expiry, from the person resending it; the old
 * link stops working. An expired invitation may be resent too.
 */
export async function resendInvitation(deps: InvitationMailDeps & { db: Database }, viewer: Viewer, invitationId: string, now: Date): Promise<Invitation> {
  const { token, tokenHash } = newInvitationToken(viewer.organizationId);
  const expiresAt = invitationExpiry(now);
  const row = await deps.db.transaction(async (tx) => {
    const role = managerAmong(await lockMembers(tx, viewer.organizationId), viewer);
    const [invitation] = await tx
      .select()
      .from(invitations)
      .where(and(eq(invitations.id, invitationId), eq(invitations.organizationId, viewer.organizationId)))
      .for('update');
    if (!invitation) throw noSuchInvitation(viewer.organizationName);
    if (invitation.role === 'owner' && role !== 'owner') throw new AppError('Forbidden', 'Only an owner can invite an owner.');
    await checkInvitationQuota(tx, viewer.organizationId, now);
    const [updated] = await tx
      .update(invitations)
      .set({ tokenHash, expiresAt, invitedBy: viewer.personId })
      .where(and(eq(invitations.organizationId, viewer.organizationId), eq(invitations.id, invitationId)))
      .returning();
    await recordAudit(tx, { organizationId: viewer.organizationId, actor: actorOf(viewer), action: 'member.invitation_resent', target: invitation.email });
    return updated ?? invitation;
  });
  await sendInvitationMail(deps, { invitation: row, inviter: viewer, token });
  return toInvitation(row);
}

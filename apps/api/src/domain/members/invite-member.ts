import { randomUUID } from 'node:crypto';
import type { Invitation, Role } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { lte, sql } from 'drizzle-orm';
import { invitations } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { actorOf, recordAudit } from '../audit/record-audit.js';
import type { Viewer } from '../people/ensure-person.js';
import { type InvitationMailDeps, sendInvitationMail } from './invitation-mail.js';
import { checkInvitationQuota } from './invitation-quota.js';
import { invitationExpiry, newInvitationToken, toInvitation } from './invitation-rows.js';
import { lockMembers, managerAmong } from './locked-members.js';

/** A validated invitation form (contracts' invitationInputSchema output: the address lower-cased). */
export type InvitationRequest = { email: string; role: Role };

/**
 * Invites an address into the current organisation with a role and mails it the link. An address
 * already a member, or with a pending invitation that still works, is refused (409); an expired one
 * is replaced. Only an owner invites an owner.
 */
export async function inviteMember(deps: InvitationMailDeps & { db: Database }, viewer: Viewer, input: InvitationRequest, now: Date): Promise<Invitation> {
  const { token, tokenHash } = newInvitationToken(viewer.organizationId);
  const expiresAt = invitationExpiry(now);
  const row = await deps.db.transaction(async (tx) => {
    const members = await lockMembers(tx, viewer.organizationId);
    const role = managerAmong(members, viewer);
    if (input.role === 'owner' && role !== 'owner') throw new AppError('Forbidden', 'Only an owner can invite an owner.');
    await checkInvitationQuota(tx, viewer.organizationId, now);
    if (members.some((member) => member.email.toLowerCase() === input.email)) {
      throw new AppError('Conflict', `${input.email} is already a member of ${viewer.organizationName}.`);
    }
    const [stored] = await tx
      .insert(invitations)
      .values({
        id: randomUUID(),
        organizationId: viewer.organizationId,
        email: input.email,
        role: input.role,
        tokenHash,
        invitedBy: viewer.personId,
        expiresAt,
      })
      .onConflictDoUpdate({
        target: [invitations.organizationId, invitations.email],
        set: { id: sql`excluded.id`, role: input.role, tokenHash, invitedBy: viewer.personId, createdAt: now, expiresAt },
        // Only an expired invitation is replaced; one that still works answers nothing, hence 409.
        setWhere: lte(invitations.expiresAt, now),
      })
      .returning();
    if (!stored) throw new AppError('Conflict', `${input.email} already has a pending invitation to ${viewer.organizationName}: resend it instead.`);
    await recordAudit(tx, {
      organizationId: viewer.organizationId,
      actor: actorOf(viewer),
      action: 'member.invited',
      target: input.email,
      changes: { role: { to: input.role } },
    });
    return stored;
  });
  await sendInvitationMail(deps, { invitation: row, inviter: viewer, token });
  return toInvitation(row);
}

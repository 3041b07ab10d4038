import type { OrganizationMembership } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import { invitations, memberships, organizations, persons } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { actorOf, recordAudit } from '../audit/record-audit.js';
import type { Viewer } from '../people/ensure-person.js';
import { parseInvitationToken } from './invitation-rows.js';

/**
 * The signed-in person joins the organisation of the link's invitation with its role, and works in
 * it from now on; the invitation is used up. Only the invited address may accept. A person already a
 * member keeps the role they have: accepting again (a second click, two tabs) succeeds and changes nothing else.
 */
export async function acceptInvitation(db: Database, viewer: Viewer, token: string, now: Date): Promise<OrganizationMembership> {
  const unknown = () => new AppError('NotFound', 'This invitation link is unknown or has expired. Ask for a new invitation.');
  const link = parseInvitationToken(token);
  if (!link) throw unknown();
  return db.transaction(async (tx) => {
    const [invitation] = await tx
      .select()
      .from(invitations)
      .where(and(eq(invitations.organizationId, link.organizationId), eq(invitations.tokenHash, link.tokenHash)))
      .for('update');
    if (!invitation || invitation.expiresAt <= now) throw unknown();
    if (viewer.email.toLowerCase() !== invitation.email) {
      throw new AppError('Forbidden', `This invitation was sent to ${invitation.email}. Sign in with that address to accept it.`, {
        invitedEmail: invitation.email,
      });
    }
    const [organization] = await tx.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, invitation.organizationId));
    const organizationName = organization?.name ?? '';
    const [joined] = await tx
      .insert(memberships)
      .values({ organizationId: invitation.organizationId, personId: viewer.personId, role: invitation.role })
      .onConflictDoNothing()
      .returning({ role: memberships.role });
    await tx.delete(invitations).where(and(eq(invitations.organizationId, invitation.organizationId), eq(invitations.id, invitation.id)));
    await tx.update(persons).set({ organizationId: invitation.organizationId }).where(eq(persons.id, viewer.personId));
    if (joined) {
      await recordAudit(tx, {
        organizationId: invitation.organizationId,
        actor: actorOf(viewer),
        action: 'member.joined',
        target: viewer.email,
        changes: { role: { to: invitation.role } },
      });
      return { organizationId: invitation.organizationId, organizationName, role: joined.role };
    }
    const [existing] = await tx
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.organizationId, invitation.organizationId), eq(memberships.personId, viewer.personId)));
    return { organizationId: invitation.organizationId, organizationName, role: existing?.role ?? invitation.role };
  });
}

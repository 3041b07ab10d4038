import type { OrganizationMembership } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import { memberships, persons } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { actorOf, recordAudit } from '../audit/record-audit.js';
import { lockMembers, ownersAmong } from '../members/locked-members.js';
import { moveToAnotherOrganization, type Viewer } from './ensure-person.js';
import { membershipOf } from './membership-of.js';

/**
 * The person leaves one of their organisations (404 when not a member; 409 for its last owner).
 * Leaving the current one moves them to the oldest they still belong to, or to a new one of their
 * own. Answers the current organisation afterwards.
 */
export async function leaveOrganization(db: Database, viewer: Viewer, organizationId: string): Promise<OrganizationMembership> {
  return db.transaction(async (tx) => {
    const { organizationName } = await membershipOf(tx, viewer.personId, organizationId);
    const members = await lockMembers(tx, organizationId);
    const self = members.find((member) => member.personId === viewer.personId);
    if (!self) throw new AppError('NotFound', 'You are not a member of this organisation.');
    if (self.role === 'owner' && ownersAmong(members) === 1) {
      throw new AppError('Conflict', `You are the last owner of ${organizationName}: make another member an owner before you leave.`);
    }
    await tx.delete(memberships).where(and(eq(memberships.organizationId, organizationId), eq(memberships.personId, viewer.personId)));
    await recordAudit(tx, { organizationId, actor: actorOf(viewer), action: 'member.left', target: viewer.email, changes: { role: { from: self.role } } });
    const [person] = await tx.select({ organizationId: persons.organizationId }).from(persons).where(eq(persons.id, viewer.personId));
    const current =
      person?.organizationId === organizationId ? await moveToAnotherOrganization(tx, { id: viewer.personId, email: viewer.email }) : person?.organizationId;
    return membershipOf(tx, viewer.personId, current ?? viewer.organizationId);
  });
}

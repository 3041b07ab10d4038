import type { Member, Role } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import { memberships } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { actorOf, recordAudit } from '../audit/record-audit.js';
import type { Viewer } from '../people/ensure-person.js';
import { lastOwner, lockMembers, managerAmong, notAMember, ownersAmong, toMember } from './locked-members.js';

/**
 * Gives a member of the current organisation another role. Only an owner grants or takes away the
 * owner role, and the last owner keeps it (409). The same role again changes nothing.
 */
export async function changeMemberRole(db: Database, viewer: Viewer, personId: string, role: Role): Promise<Member> {
  return db.transaction(async (tx) => {
    const members = await lockMembers(tx, viewer.organizationId);
    const actingRole = managerAmong(members, viewer);
    const member = members.find((candidate) => candidate.personId === personId);
    if (!member) throw notAMember(viewer.organizationName);
    if (member.role === role) return toMember(member);
    if ((member.role === 'owner' || role === 'owner') && actingRole !== 'owner') {
      throw new AppError('Forbidden', 'Only an owner can make someone an owner or change the role of an owner.');
    }
    if (member.role === 'owner' && ownersAmong(members) === 1) throw lastOwner(member.email, viewer.organizationName);
    await tx
      .update(memberships)
      .set({ role })
      .where(and(eq(memberships.organizationId, viewer.organizationId), eq(memberships.personId, personId)));
    await recordAudit(tx, {
      organizationId: viewer.organizationId,
      actor: actorOf(viewer),
      action: 'member.role_changed',
      target: member.email,
      changes: { role: { from: member.role, to: role } },
    });
    return toMember({ ...member, role });
  });
}

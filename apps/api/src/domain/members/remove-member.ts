import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import { memberships } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { actorOf, recordAudit } from '../audit/record-audit.js';
import type { Viewer } from '../people/ensure-person.js';
import { lastOwner, lockMembers, managerAmong, notAMember, ownersAmong } from './locked-members.js';

/**
 * Removes a member from the current organisation. Only an owner removes an owner, and never the
 * last one (409). A removed person working in it is moved to another of theirs on their next request
 * (ensurePerson); removing oneself is leaving.
 */
export async function removeMember(db: Database, viewer: Viewer, personId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const members = await lockMembers(tx, viewer.organizationId);
    const actingRole = managerAmong(members, viewer);
    const member = members.find((candidate) => candidate.personId === personId);
    if (!member) throw notAMember(viewer.organizationName);
    if (member.role === 'owner' && actingRole !== 'owner') throw new AppError('Forbidden', 'Only an owner can remove an owner.');
    if (member.role === 'owner' && ownersAmong(members) === 1) throw lastOwner(member.email, viewer.organizationName);
    await tx.delete(memberships).where(and(eq(memberships.organizationId, viewer.organizationId), eq(memberships.personId, personId)));
    await recordAudit(tx, {
      organizationId: viewer.organizationId,
      actor: actorOf(viewer),
      action: personId === viewer.personId ? 'member.left' : 'member.removed',
      target: member.email,
      changes: { role: { from: member.role } },
    });
  });
}

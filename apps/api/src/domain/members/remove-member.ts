import type { Database } from '@meterway/db';
import { and, eq, isNull } from 'drizzle-orm';
import { memberships, publishableKeys } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { actorOf, initialValues, recordAudit } from '../audit/record-audit.js';
import type { Viewer } from '../people/ensure-person.js';
import { lastOwner, lockMembers, managerAmong, notAMember, ownersAmong } from './locked-members.js';

/**
 * Removes a member from the current organisation. Only an owner removes an owner, and never the
 * last one (409). A removed person working in it is moved to another of theirs on their next request
 * (ensurePerson); removing oneself is leaving. With `keys: 'delete'` the live keys they made go with
 * them, in the same transaction; the ids of those deleted are returned (the gateway forgets them).
 */
export async function removeMember(db: Database, viewer: Viewer, personId: string, { keys, now }: { keys: 'keep' | 'delete'; now: Date }): Promise<string[]> {
  return db.transaction(async (tx) => {
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
    if (keys === 'keep') return [];
    const gone = personId === viewer.personId ? 'left the organisation' : 'was removed from the organisation';
    const deleted = await tx
      .update(publishableKeys)
      .set({ deletedAt: now })
      .where(and(eq(publishableKeys.organizationId, viewer.organizationId), eq(publishableKeys.madeByPersonId, personId), isNull(publishableKeys.deletedAt)))
      .returning({ id: publishableKeys.id, name: publishableKeys.name });
    for (const key of deleted) {
      await recordAudit(tx, {
        organizationId: viewer.organizationId,
        actor: actorOf(viewer),
        action: 'key.deleted',
        target: key.name,
        changes: initialValues({ reason: `Its maker, ${member.email}, ${gone}.` }),
      });
    }
    return deleted.map((key) => key.id);
  });
}

import type { MadeKey, MemberList } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import { invitations, memberships, persons, publishableKeys } from '../../db/schema/index.js';
import type { Viewer } from '../people/ensure-person.js';
import { toInvitation } from './invitation-rows.js';

/** The current organisation's members, longest-standing first, each with the live keys they made, and its pending invitations that still work. */
export async function listMembers(db: Database, viewer: Viewer, now: Date): Promise<MemberList> {
  const members = await db
    .select({ personId: memberships.personId, email: persons.email, role: memberships.role, joinedAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(persons, eq(persons.id, memberships.personId))
    .where(eq(memberships.organizationId, viewer.organizationId))
    .orderBy(asc(memberships.createdAt), asc(memberships.personId));
  const pending = await db
    .select()
    .from(invitations)
    .where(and(eq(invitations.organizationId, viewer.organizationId), gt(invitations.expiresAt, now)))
    .orderBy(asc(invitations.createdAt), asc(invitations.id));
  const keys = await db
    .select({
      id: publishableKeys.id,
      name: publishableKeys.name,
      kind: publishableKeys.kind,
      scope: publishableKeys.scope,
      madeBy: publishableKeys.madeByPersonId,
    })
    .from(publishableKeys)
    .where(and(eq(publishableKeys.organizationId, viewer.organizationId), isNull(publishableKeys.deletedAt)))
    .orderBy(asc(publishableKeys.createdAt), asc(publishableKeys.id));
  const keysMadeBy = (personId: string): MadeKey[] => keys.filter((key) => key.madeBy === personId).map(({ madeBy: _madeBy, ...key }) => key);
  return {
    members: members.map((member) => ({ ...member, joinedAt: member.joinedAt.toISOString(), keysMade: keysMadeBy(member.personId) })),
    invitations: pending.map(toInvitation),
  };
}

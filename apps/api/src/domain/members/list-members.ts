import type { MemberList } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, asc, eq, gt } from 'drizzle-orm';
import { invitations, memberships, persons } from '../../db/schema/index.js';
import type { Viewer } from '../people/ensure-person.js';
import { toInvitation } from './invitation-rows.js';

/** The current organisation's members, longest-standing first, and its pending invitations that still work. */
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
  return {
    members: members.map((member) => ({ ...member, joinedAt: member.joinedAt.toISOString() })),
    invitations: pending.map(toInvitation),
  };
}

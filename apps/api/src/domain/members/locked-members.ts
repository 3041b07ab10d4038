import { can, type Member, type Role } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { asc, eq } from 'drizzle-orm';
import { memberships, persons } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';

export type LockedMember = { personId: string; email: string; role: Role; joinedAt: Date };

/**
 * The organisation's members, their membership rows locked until the transaction ends: changes of
 * roles and removals in one organisation take turns, so two owners demoting each other at once
 * cannot leave it without an owner. Locked in one order (by person) so two such transactions never deadlock.
 */
export async function lockMembers(tx: Database, organizationId: string): Promise<LockedMember[]> {
  await tx
    .select({ personId: memberships.personId })
    .from(memberships)
    .where(eq(memberships.organizationId, organizationId))
    .orderBy(asc(memberships.personId))
    .for('update');
  return tx
    .select({ personId: memberships.personId, email: persons.email, role: memberships.role, joinedAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(persons, eq(persons.id, memberships.personId))
    .where(eq(memberships.organizationId, organizationId))
    .orderBy(asc(memberships.personId));
}

/**
 * The acting person's role, read again under the lock: a role taken away since the request's
 * check no longer acts.
 */
export function managerAmong(members: LockedMember[], viewer: { personId: string; organizationName: string }): Role {
  const role = members.find((member) => member.personId === viewer.personId)?.role;
  if (!role || !can(role, 'manageMembers')) throw new AppError('Forbidden', `Your role in ${viewer.organizationName} does not allow managing its members.`);
  return role;
}

export const ownersAmong = (members: LockedMember[]) => members.filter((member) => member.role === 'owner').length;

/** The same answer for another organisation's member as for no one at all. */
export const notAMember = (organizationName: string) => new AppError('NotFound', `There is no such member in ${organizationName}.`);

export const lastOwner = (email: string, organizationName: string) =>
  new AppError('Conflict', `${email} is the last owner of ${organizationName}: make another member an owner first.`);

export const toMember = (member: LockedMember): Member => ({
  personId: member.personId,
  email: member.email,
  role: member.role,
  joinedAt: member.joinedAt.toISOString(),
});

import type { OrganizationMembership } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq } from 'drizzle-orm';
import { memberships, organizations } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';

/** The person's membership of an organisation, or 404: another organisation's id looks like no organisation at all. */
export async function membershipOf(db: Database, personId: string, organizationId: string): Promise<OrganizationMembership> {
  const [membership] = await db
    .select({ organizationId: organizations.id, organizationName: organizations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(and(eq(memberships.personId, personId), eq(memberships.organizationId, organizationId)));
  if (!membership) throw new AppError('NotFound', 'You are not a member of this organisation.');
  return membership;
}

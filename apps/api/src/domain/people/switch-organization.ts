import type { OrganizationMembership } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { eq } from 'drizzle-orm';
import { persons } from '../../db/schema/index.js';
import type { Viewer } from './ensure-person.js';
import { membershipOf } from './membership-of.js';

/** Makes one of the person's organisations the current one: every /bff route answers for it from the next request. */
export async function switchOrganization(db: Database, viewer: Viewer, organizationId: string): Promise<OrganizationMembership> {
  const membership = await membershipOf(db, viewer.personId, organizationId);
  await db.update(persons).set({ organizationId }).where(eq(persons.id, viewer.personId));
  return membership;
}

import type { OrganizationMembership } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { eq } from 'drizzle-orm';
import { persons } from '../../db/schema/index.js';
import { actorOf, recordAudit } from '../audit/record-audit.js';
import { createOwnedOrganization, type Viewer } from './ensure-person.js';

/** A new organisation the person owns, made their current one. */
export async function createOrganization(db: Database, viewer: Viewer, input: { name: string }): Promise<OrganizationMembership> {
  return db.transaction(async (tx) => {
    const organizationId = await createOwnedOrganization(tx, { personId: viewer.personId, name: input.name });
    await tx.update(persons).set({ organizationId }).where(eq(persons.id, viewer.personId));
    await recordAudit(tx, { organizationId, actor: actorOf(viewer), action: 'organization.created', target: input.name });
    return { organizationId, organizationName: input.name, role: 'owner' };
  });
}

import type { Me } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { asc, eq } from 'drizzle-orm';
import { memberships, organizations } from '../../db/schema/index.js';
import { getBalance } from '../credit/get-balance.js';
import { recentCheckouts } from '../payments/checkout-sessions.js';
import type { Viewer } from './ensure-person.js';

/** Every organisation the person belongs to, oldest membership first. */
async function organizationsOf(db: Database, personId: string) {
  return db
    .select({ organizationId: organizations.id, organizationName: organizations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(eq(memberships.personId, personId))
    .orderBy(asc(memberships.createdAt), asc(organizations.id));
}

/** The current user (spec §3): who, which organisation and role, the credit left and recent top-ups. */
export async function getMe(db: Database, viewer: Viewer): Promise<Me> {
  // Sessions first: a top-up is marked SUCCEEDED in the transaction that credits it, so the credit
  // read after it always includes every success this answer shows (read together, a settlement
  // committing between the two reads showed SUCCEEDED with the old balance).
  const sessions = await recentCheckouts(db, viewer.organizationId);
  const balance = await getBalance(db, viewer.organizationId);
  return {
    email: viewer.email,
    organizationName: viewer.organizationName,
    systemAdmin: viewer.systemAdmin,
    organizationId: viewer.organizationId,
    ...balance,
    organizationCheckoutSessions: sessions,
    role: viewer.role,
    organizations: await organizationsOf(db, viewer.personId),
  };
}

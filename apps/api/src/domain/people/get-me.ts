import type { Database } from '@meterway/db';
import type { Me } from '@meterway/contracts';
import type { Viewer } from './ensure-person.js';

/** The current user (spec §3). Credit and checkout sessions come with the payments work. */
export async function getMe(_db: Database, viewer: Viewer): Promise<Me> {
  return {
    email: viewer.email,
    organizationName: viewer.organizationName,
    systemAdmin: viewer.systemAdmin,
    organizationId: viewer.organizationId,
    remainingSpendAmount: 0,
    organizationCheckoutSessions: [],
  };
}

import type { Me } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { spendableNanos } from '../credit/ledger.js';
import { nanosToDollars } from '../money.js';
import { recentCheckouts } from '../payments/checkout-sessions.js';
import type { Viewer } from './ensure-person.js';

/** The current user (spec §3): who, which organisation, the credit left and recent top-ups. */
export async function getMe(db: Database, viewer: Viewer): Promise<Me> {
  const [spendable, sessions] = await Promise.all([spendableNanos(db, viewer.organizationId), recentCheckouts(db, viewer.organizationId)]);
  return {
    email: viewer.email,
    organizationName: viewer.organizationName,
    systemAdmin: viewer.systemAdmin,
    organizationId: viewer.organizationId,
    remainingSpendAmount: nanosToDollars(spendable),
    organizationCheckoutSessions: sessions,
  };
}

import type { OrganizationBalance } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { nanosToDollars } from '../money.js';
import { creditOf, nextGrantExpiry } from './ledger.js';

/** The organisation's credit in dollars: the balance, what is owed, its promotional part and the soonest grant expiry (/bff/me and the developer API). */
export async function getBalance(db: Database, organizationId: string): Promise<OrganizationBalance> {
  const credit = await creditOf(db, organizationId);
  const nextExpiry = credit.promotionalNanos > 0n ? await nextGrantExpiry(db, organizationId) : undefined;
  return {
    remainingSpendAmount: nanosToDollars(credit.balanceNanos),
    owedAmount: nanosToDollars(credit.owedNanos),
    promotionalCreditAmount: nanosToDollars(credit.promotionalNanos),
    nextCreditExpiry: nextExpiry?.toISOString() ?? null,
  };
}

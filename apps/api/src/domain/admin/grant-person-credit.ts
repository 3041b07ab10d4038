import { type CreditGrant, type CreditGrantInput, grantExpiryOf } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { eq } from 'drizzle-orm';
import { organizations, persons } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { type Actor, actorOf } from '../audit/record-audit.js';
import { postPromotionalGrant } from '../credit/grant-credit.js';
import { dollarsToNanos, nanosToDollars } from '../money.js';

/**
 * A system admin's promotional grant to the person's current organisation (issue #22), usable
 * through `expiresOn` (it expires at the end of that day, UTC); the organisation's audit log names
 * the admin.
 */
export async function grantPersonCredit(db: Database, admin: Actor, personId: string, input: CreditGrantInput, now: Date = new Date()): Promise<CreditGrant> {
  const [person] = await db
    .select({ organizationId: persons.organizationId, organizationName: organizations.name })
    .from(persons)
    .innerJoin(organizations, eq(organizations.id, persons.organizationId))
    .where(eq(persons.id, personId));
  if (!person) throw new AppError('NotFound', 'No such user.');
  const grant = await postPromotionalGrant(
    db,
    {
      organizationId: person.organizationId,
      amountNanos: dollarsToNanos(input.amount),
      note: input.note,
      expiresAt: grantExpiryOf(input.expiresOn),
      actor: actorOf(admin),
    },
    now,
  );
  return {
    id: grant.id,
    organizationId: person.organizationId,
    organizationName: person.organizationName,
    amount: nanosToDollars(grant.amountNanos),
    note: grant.note,
    expiresAt: grant.expiresAt.toISOString(),
    balance: nanosToDollars(grant.balanceAfterNanos),
  };
}

import type { Database } from '@meterway/db';
import { desc, eq, sql } from 'drizzle-orm';
import { organizations, persons } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { systemActor } from '../audit/record-audit.js';
import { dollarsToNanos, nanosToDollars } from '../money.js';
import { postEntry } from './ledger.js';
import { recordCreditAudit } from './record-credit-audit.js';

export type CreditGrant = { email: string; organizationName: string; amount: number; balance: number };

/**
 * An operator's credit adjustment (promotion, support, refund) for the organisation of the person
 * with this e-mail, posted through the ledger like every other change and recorded in the audit log
 * as the system's. A negative grant that would take the balance below zero is refused and changes
 * nothing.
 */
export async function grantCredit(db: Database, input: { email: string; dollars: number; reason?: string }): Promise<CreditGrant> {
  const [person] = await db
    .select({ email: persons.email, organizationId: persons.organizationId, organizationName: organizations.name })
    .from(persons)
    .innerJoin(organizations, eq(organizations.id, persons.organizationId))
    .where(eq(sql`lower(${persons.email})`, input.email.trim().toLowerCase()))
    .orderBy(desc(persons.createdAt))
    .limit(1);
  if (!person) {
    throw new AppError('NotFound', `No person with the e-mail ${input.email} has signed in yet; a person exists after their first sign-in to the console.`);
  }
  const amountNanos = dollarsToNanos(input.dollars);
  if (amountNanos === 0n) throw new AppError('BadRequest', 'The amount must not be zero.');
  const reason = input.reason?.trim() || 'operator adjustment';
  const posted = await db.transaction(async (tx) => {
    const entry = await postEntry(tx, { organizationId: person.organizationId, kind: 'adjustment', amountNanos, reason });
    if (!entry.posted) throw new Error('an adjustment without a reference is never a duplicate');
    await recordCreditAudit(tx, {
      organizationId: person.organizationId,
      actor: systemActor,
      action: 'credit.granted',
      amountNanos,
      posted: entry,
      details: { reason },
    });
    return entry;
  });
  return { email: person.email, organizationName: person.organizationName, amount: input.dollars, balance: nanosToDollars(posted.balanceAfterNanos) };
}

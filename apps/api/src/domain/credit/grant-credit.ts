import { randomUUID } from 'node:crypto';
import { grantExpiryOf } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { desc, eq, sql } from 'drizzle-orm';
import { creditGrants, organizations, persons } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { type Actor, systemActor } from '../audit/record-audit.js';
import { dollarsToNanos, nanosToDollars } from '../money.js';
import { postEntry } from './ledger.js';
import { recordCreditAudit } from './record-credit-audit.js';

export type CreditGrant = { email: string; organizationName: string; amount: number; balance: number; expiresAt: string | null };

export type PromotionalGrant = { id: string; amountNanos: bigint; note: string; expiresAt: Date; balanceAfterNanos: bigint };

/**
 * A promotional grant to an organisation (issue #22): a credit_grants row and its `grant` entry,
 * drawn on before paid credit and taken back by the expiry sweep at `expiresAt`; recorded in the
 * audit log with its note and expiry.
 */
export async function postPromotionalGrant(
  db: Database,
  input: { organizationId: string; amountNanos: bigint; note: string; expiresAt: Date; actor: Actor },
  now: Date = new Date(),
): Promise<PromotionalGrant> {
  if (input.amountNanos <= 0n) throw new AppError('BadRequest', 'A promotional grant must be a positive amount.');
  if (input.expiresAt <= now) throw new AppError('BadRequest', `A promotional grant must expire in the future; ${input.expiresAt.toISOString()} has passed.`);
  const note = input.note.trim();
  if (!note) throw new AppError('BadRequest', 'A promotional grant needs a note (e.g. trial, support).');
  const id = randomUUID();
  return db.transaction(async (tx) => {
    await tx.insert(creditGrants).values({
      id,
      organizationId: input.organizationId,
      amountNanos: input.amountNanos,
      remainingNanos: input.amountNanos,
      expiresAt: input.expiresAt,
      note,
    });
    const entry = await postEntry(tx, {
      organizationId: input.organizationId,
      kind: 'grant',
      amountNanos: input.amountNanos,
      reference: id,
      reason: note,
      promotional: true,
    });
    if (!entry.posted) throw new Error('a new grant is never a duplicate');
    await recordCreditAudit(tx, {
      organizationId: input.organizationId,
      actor: input.actor,
      action: 'credit.granted',
      amountNanos: input.amountNanos,
      posted: entry,
      details: { note, expiresAt: input.expiresAt.toISOString() },
    });
    return { id, amountNanos: input.amountNanos, note, expiresAt: input.expiresAt, balanceAfterNanos: entry.balanceAfterNanos };
  });
}

/** An operator's adjustment: any non-zero amount, a negative one never taking the balance below zero. */
async function postAdjustment(db: Database, organizationId: string, amountNanos: bigint, reason: string) {
  if (amountNanos === 0n) throw new AppError('BadRequest', 'The amount must not be zero.');
  return db.transaction(async (tx) => {
    const entry = await postEntry(tx, { organizationId, kind: 'adjustment', amountNanos, reason });
    if (!entry.posted) throw new Error('an adjustment without a reference is never a duplicate');
    await recordCreditAudit(tx, { organizationId, actor: systemActor, action: 'credit.granted', amountNanos, posted: entry, details: { reason } });
    return entry;
  });
}

/**
 * The operator's credit for the organisation of the person with this e-mail, posted through the
 * ledger like every other change and recorded in the audit log as the system's. With `expiresOn`
 * (YYYY-MM-DD, the last day it can be used: it expires at the end of that day, UTC) a promotional
 * grant, whose reason is its note; without, an adjustment (promotion, support, refund), which may
 * be negative but never takes the balance below zero.
 */
export async function grantCredit(
  db: Database,
  input: { email: string; dollars: number; reason?: string; expiresOn?: string },
  now: Date = new Date(),
): Promise<CreditGrant> {
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
  const granted = { email: person.email, organizationName: person.organizationName, amount: input.dollars };
  if (input.expiresOn !== undefined) {
    const grant = await postPromotionalGrant(
      db,
      { organizationId: person.organizationId, amountNanos, note: input.reason ?? '', expiresAt: grantExpiryOf(input.expiresOn), actor: systemActor },
      now,
    );
    return { ...granted, balance: nanosToDollars(grant.balanceAfterNanos), expiresAt: grant.expiresAt.toISOString() };
  }
  const posted = await postAdjustment(db, person.organizationId, amountNanos, input.reason?.trim() || 'operator adjustment');
  return { ...granted, balance: nanosToDollars(posted.balanceAfterNanos), expiresAt: null };
}

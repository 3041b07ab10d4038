import type { Database } from '@meterway/db';
import { and, asc, eq, gt, lte, sql } from 'drizzle-orm';
import { creditGrants } from '../../db/schema/index.js';
import { systemActor } from '../audit/record-audit.js';
import { expireGrant } from './ledger.js';
import { recordCreditAudit } from './record-credit-audit.js';

const batchSize = 200;

type DueGrant = { id: string; organizationId: string; expiresAt: Date; note: string };

/** Due grants with credit left after `after`, in (expiry, id) order; of one organisation, or of all. */
async function dueGrants(db: Database, now: Date, after: DueGrant | undefined, organizationId?: string): Promise<DueGrant[]> {
  return db
    .select({ id: creditGrants.id, organizationId: creditGrants.organizationId, expiresAt: creditGrants.expiresAt, note: creditGrants.note })
    .from(creditGrants)
    .where(
      and(
        lte(creditGrants.expiresAt, now),
        gt(creditGrants.remainingNanos, 0n),
        organizationId ? eq(creditGrants.organizationId, organizationId) : undefined,
        after ? sql`(${creditGrants.expiresAt}, ${creditGrants.id}) > (${after.expiresAt.toISOString()}::timestamptz, ${after.id}::uuid)` : undefined,
      ),
    )
    .orderBy(asc(creditGrants.expiresAt), asc(creditGrants.id))
    .limit(batchSize);
}

/**
 * Takes what is left of every grant whose expiry has come out of its organisation's balance (of
 * one organisation with `organizationId`), each grant in a transaction of its own with its audit
 * entry. Any number of instances may sweep at once: expireGrant re-reads the grant under the
 * balance row's lock, so a remainder leaves once. The whole remainder goes, whatever calls in
 * flight hold (they settle against the paid credit, or owe); until it goes, admission does not
 * count it and settlement asks for this sweep first. Returns how many grants gave up credit.
 */
export async function expireGrants(db: Database, now: Date = new Date(), organizationId?: string): Promise<{ expired: number }> {
  let expired = 0;
  let after: DueGrant | undefined;
  for (;;) {
    const batch = await dueGrants(db, now, after, organizationId);
    for (const grant of batch) {
      const posted = await db.transaction(async (tx) => {
        const entry = await expireGrant(tx, grant, now);
        if (!entry.posted) return false;
        await recordCreditAudit(tx, {
          organizationId: grant.organizationId,
          actor: systemActor,
          action: 'credit.expired',
          amountNanos: entry.balanceAfterNanos - entry.balanceBeforeNanos,
          posted: entry,
          details: { note: grant.note, expiresAt: grant.expiresAt.toISOString() },
        });
        return true;
      });
      if (posted) expired += 1;
    }
    after = batch.at(-1);
    if (batch.length < batchSize || !after) return { expired };
  }
}

import { type KeyCallers, topCallersPerList } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq, gte, sql } from 'drizzle-orm';
import { callerHours, publishableKeys } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { nanosToDollars } from '../money.js';
import type { Viewer } from '../people/ensure-person.js';
import { liveKeyOf } from './publishable-keys.js';

/** The view goes back a day, from the start of the hour 24 hours ago (caller_hours counts by the hour). */
const sinceOf = (now: Date) => new Date(Math.floor((now.getTime() - 86_400_000) / 3_600_000) * 3_600_000);

type Totals = { caller: string; calls: number; spentNanos: bigint };

type KeyOf = { organizationId: string; keyId: string };

/**
 * The key's callers of the last 24 hours, of one kind: the top by calls and the top by spend,
 * together, highest spend first.
 */
async function topCallers(db: Database, key: KeyOf, kind: 'address' | 'end_user', since: Date): Promise<Totals[]> {
  const totals = db
    .select({
      caller: callerHours.caller,
      calls: sql<number>`sum(${callerHours.calls})::int`.as('calls'),
      spentNanos: sql<bigint>`sum(${callerHours.spentNanos})`.as('spent_nanos'),
    })
    .from(callerHours)
    .where(
      and(
        eq(callerHours.organizationId, key.organizationId),
        eq(callerHours.publishableKeyId, key.keyId),
        eq(callerHours.kind, kind),
        gte(callerHours.hour, since),
      ),
    )
    .groupBy(callerHours.caller)
    .as('totals');
  const [byCalls, bySpend] = await Promise.all(
    [sql`${totals.calls} desc`, sql`${totals.spentNanos} desc`].map((order) => db.select().from(totals).orderBy(order, totals.caller).limit(topCallersPerList)),
  );
  const union = new Map([...byCalls!, ...bySpend!].map((row) => [row.caller, { ...row, spentNanos: BigInt(row.spentNanos) }]));
  return [...union.values()].sort((x, y) => (y.spentNanos > x.spentNanos ? 1 : y.spentNanos < x.spentNanos ? -1 : y.calls - x.calls));
}

/** GET /bff/publishable-keys/{id}/callers: who called the viewer's key in the last 24 hours, and whether each is blocked now. */
export async function listCallers(db: Database, viewer: Viewer, keyId: string, now: Date): Promise<KeyCallers> {
  const [key] = await db.select({ blocks: publishableKeys.blocks }).from(publishableKeys).where(liveKeyOf(viewer, keyId));
  if (!key) throw new AppError('NotFound', 'Unknown publishable key.');
  const since = sinceOf(now);
  const ofKey = { organizationId: viewer.organizationId, keyId };
  const [addresses, endUsers] = await Promise.all([topCallers(db, ofKey, 'address', since), topCallers(db, ofKey, 'end_user', since)]);
  const blockedClients = new Set(key.blocks.map((block) => block.client));
  const blockedEndUsers = new Set(key.blocks.map((block) => block.endUser));
  return {
    since: since.toISOString(),
    clientAddresses: addresses.map((row) => ({
      clientAddress: row.caller,
      calls: row.calls,
      spend: nanosToDollars(row.spentNanos),
      blocked: blockedClients.has(row.caller),
    })),
    endUsers: endUsers.map((row) => ({
      endUser: row.caller,
      calls: row.calls,
      spend: nanosToDollars(row.spentNanos),
      blocked: blockedEndUsers.has(row.caller),
    })),
  };
}

import type { Database } from '@meterway/db';
import { and, eq, lt } from 'drizzle-orm';
import { callerSpend } from '../../db/schema/index.js';
import { dayStart } from '../money.js';
import type { GatewayKey } from './find-key.js';

/** Who makes a call: its client address (clientOf's form) and, for a key that requires end-user tokens, the token's `sub`. */
export type Caller = { client: string; endUser: string | null };

/** The end user a call counts as: its token's `sub`, or its client address for a key that takes no tokens. */
export const endUserOf = (caller: Caller): string => caller.endUser ?? caller.client;

/**
 * A cap on what one caller may spend with a key in one period, held against at admission like the
 * key's budget: a row of caller_spend, named by its period and caller.
 */
export type Allowance = {
  kind: 'address-day' | 'end-user-day' | 'end-user-month';
  /** "2026-11-25 address 203.0.113.9", "2026-11-25 end-user alice", "2026-11 end-user alice": the period first, which has no space. */
  name: string;
  limitNanos: bigint;
  /** The period's last UTC day. */
  endsOn: string;
};

type Caps = Pick<GatewayKey, 'clientSpendPerDayNanos' | 'endUserSpendPerDayNanos' | 'endUserSpendPerMonthNanos'>;

/** The allowances a call of this caller counts against now, as the key caps them (none for a key without spend caps). */
export function allowancesOf(key: Caps, caller: Caller, now: Date): Allowance[] {
  const day = dayStart(now);
  const month = day.slice(0, 7);
  const monthEnd = dayStart(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)));
  const endUser = endUserOf(caller);
  const allowances: Allowance[] = [];
  if (key.clientSpendPerDayNanos !== null) {
    allowances.push({ kind: 'address-day', name: `${day} address ${caller.client}`, limitNanos: key.clientSpendPerDayNanos, endsOn: day });
  }
  if (key.endUserSpendPerDayNanos !== null) {
    allowances.push({ kind: 'end-user-day', name: `${day} end-user ${endUser}`, limitNanos: key.endUserSpendPerDayNanos, endsOn: day });
  }
  if (key.endUserSpendPerMonthNanos !== null) {
    allowances.push({ kind: 'end-user-month', name: `${month} end-user ${endUser}`, limitNanos: key.endUserSpendPerMonthNanos, endsOn: monthEnd });
  }
  return allowances;
}

/** When an allowance comes back: the start of the UTC day after its period. */
export const allowanceResetsAt = (allowance: Allowance): Date => new Date(Date.parse(`${allowance.endsOn}T00:00:00Z`) + 86_400_000);

/**
 * A caller's spend is kept while its period lasts and one day more (a call admitted before midnight
 * may settle after it): older rows, none of them holding anything, are deleted with the caller.
 */
export async function deletePastAllowances(db: Database, now: Date): Promise<void> {
  const yesterday = dayStart(new Date(now.getTime() - 86_400_000));
  await db.delete(callerSpend).where(and(lt(callerSpend.endsOn, yesterday), eq(callerSpend.reservedNanos, 0n)));
}

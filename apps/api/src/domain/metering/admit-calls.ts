import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import type { Allowance } from './allowances.js';
import type { GatewayKey } from './find-key.js';
import { pgArray, pgTextArray, sqlErrorOf } from './sql-values.js';

/** Why a call is refused before it reaches the model: the organisation's credit, the key's budget or one of its caller's allowances (named). */
export class Refusal extends Error {
  constructor(
    readonly reason: 'credit' | 'budget' | 'allowance',
    readonly allowance?: Allowance,
  ) {
    super({ credit: 'insufficient credit', budget: 'key budget exhausted', allowance: `allowance ${allowance?.name} spent` }[reason]);
  }
}

/** The key changed (deleted, rolled past the value presented, edited) since the caller read it; nothing was reserved. */
export class StaleKey extends Error {
  constructor() {
    super('the key changed since it was read');
  }
}

/** The key as the caller checked it: the value presented and the row it was checked against. */
export type PresentedKey = { key: GatewayKey; value: string };

export type Holds = {
  presented: PresentedKey;
  now: Date;
  period: string;
  ids: string[];
  amounts: bigint[];
  expiresAt: Date;
  /** What must stay free on the credit and on the budget beyond these holds (a stock's margin). */
  keepFree?: bigint;
  /** The caller's allowances the holds count against (allowancesOf). */
  allowances: Allowance[];
};

/** The refusal app.admit_calls raised, if that is what `error` is. */
function refusalOf(error: unknown, allowances: Allowance[]): Refusal | StaleKey | undefined {
  const { code, message } = sqlErrorOf(error);
  switch (code) {
    case 'MW402':
      return new Refusal('credit');
    case 'MW429':
      return new Refusal('budget');
    case 'MW430':
      return new Refusal(
        'allowance',
        allowances.find((allowance) => allowance.name === message),
      );
    case 'MW401':
      return new StaleKey();
    default:
      return undefined;
  }
}

/**
 * Reserves holds of one presented key and period in one round trip (app.admit_calls), all or none:
 * Refusal when the credit, the budget or one of the caller's allowances cannot hold them, StaleKey when the key as it is now is not
 * the key they were checked against.
 */
export async function admitHolds(db: Database, holds: Holds): Promise<void> {
  const { key, value } = holds.presented;
  try {
    await db.execute(sql`select app.admit_calls(
      ${key.organizationId}::uuid, ${key.id}::uuid, ${value}, ${key.version}::integer, ${holds.now.toISOString()}::timestamptz, ${holds.period}::date,
      ${pgArray(holds.ids)}::uuid[], ${pgArray(holds.amounts)}::bigint[], ${holds.expiresAt.toISOString()}::timestamptz,
      ${(holds.keepFree ?? 0n).toString()}::bigint, ${pgTextArray(holds.allowances.map((allowance) => allowance.name))}::text[],
      ${pgArray(holds.allowances.map((allowance) => allowance.limitNanos))}::bigint[], ${pgArray(holds.allowances.map((allowance) => allowance.endsOn))}::date[])`);
  } catch (error) {
    throw refusalOf(error, holds.allowances) ?? error;
  }
}

import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import type { GatewayKey } from './find-key.js';
import { pgArray, sqlStateOf } from './sql-values.js';

/** Why a call is refused before it reaches the model: the organisation's credit, the key's budget or its client's daily allowance. */
export class Refusal extends Error {
  constructor(readonly reason: 'credit' | 'budget' | 'client') {
    super({ credit: 'insufficient credit', budget: 'key budget exhausted', client: "client's daily allowance spent" }[reason]);
  }
}

/** The client address a key's daily allowance per client counts against, and its UTC day. */
export type ClientDay = { id: string; day: string };

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
  /** For a key that caps its clients' daily spend: whose allowance the holds count against. */
  client?: ClientDay | undefined;
};

/** The refusal app.admit_calls raised, if that is what `error` is. */
function refusalOf(error: unknown): Refusal | StaleKey | undefined {
  switch (sqlStateOf(error)) {
    case 'MW402':
      return new Refusal('credit');
    case 'MW429':
      return new Refusal('budget');
    case 'MW430':
      return new Refusal('client');
    case 'MW401':
      return new StaleKey();
    default:
      return undefined;
  }
}

/**
 * Reserves holds of one presented key and period in one round trip (app.admit_calls), all or none:
 * Refusal when the credit, the budget or the client's allowance cannot hold them, StaleKey when the key as it is now is not
 * the key they were checked against.
 */
export async function admitHolds(db: Database, holds: Holds): Promise<void> {
  const { key, value } = holds.presented;
  try {
    await db.execute(sql`select app.admit_calls(
      ${key.id}::uuid, ${value}, ${key.version}::integer, ${holds.now.toISOString()}::timestamptz, ${holds.period}::date,
      ${pgArray(holds.ids)}::uuid[], ${pgArray(holds.amounts)}::bigint[], ${holds.expiresAt.toISOString()}::timestamptz,
      ${(holds.keepFree ?? 0n).toString()}::bigint, ${holds.client?.id ?? null}, ${holds.client?.day ?? null}::date)`);
  } catch (error) {
    throw refusalOf(error) ?? error;
  }
}

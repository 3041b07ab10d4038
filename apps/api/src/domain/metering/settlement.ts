import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { networkOf } from '@meterway/service';
import type { Prices } from '../money.js';
import type { Caller } from './allowances.js';
import { expireGrants } from '../credit/expire-grants.js';
import { pgArray, rowsOf, sqlErrorOf } from './sql-values.js';

/** A reservation, by its primary key. */
export type HoldId = { organizationId: string; id: string };

/**
 * Gives reservations back to the credit, the budgets and the caller allowances they held, in one
 * round trip (app.release_holds, db/functions/release-holds.sql): an upstream failure's hold
 * (nothing is charged), a stock's unused holds, expired ones. Those already gone are skipped.
 */
export async function release(db: Database, holds: HoldId[]): Promise<void> {
  if (holds.length === 0) return;
  await db.execute(
    sql`select app.release_holds(${pgArray(holds.map((hold) => hold.organizationId))}::uuid[], ${pgArray(holds.map((hold) => hold.id))}::uuid[])`,
  );
}

export type Metered = {
  reservationId: string;
  /** Whose reservation it is: the batch of the key and period it is settled with. */
  organizationId: string;
  publishableKeyId: string;
  periodStart: string;
  completionId: string;
  model: string;
  estimatedInputTokens: number;
  inputTokens: number;
  /** Of the input tokens, those the provider reported as cached. */
  cachedInputTokens: number;
  outputTokens: number;
  /** True when the provider reported no usage and the tokens are our own count. */
  usageEstimated: boolean;
  prices: Prices & { cachedInputNanosPerToken: bigint };
  priceVersion: string;
  /** The provider that served the call. */
  provider: string;
  /** Who called: its end user is recorded, its address kept only as its network (and, for the callers view, in caller_hours). */
  caller: Caller;
  now: Date;
};

/** What a call costs, priced from the price list: cached input at its own price, the rest at the input price. */
export function costOf(call: Pick<Metered, 'inputTokens' | 'cachedInputTokens' | 'outputTokens' | 'prices'>): {
  inputNanos: bigint;
  outputNanos: bigint;
  totalNanos: bigint;
} {
  const cached = BigInt(Math.min(call.cachedInputTokens, call.inputTokens));
  const inputNanos = (BigInt(call.inputTokens) - cached) * call.prices.inputNanosPerToken + cached * call.prices.cachedInputNanosPerToken;
  const outputNanos = BigInt(call.outputTokens) * call.prices.outputNanosPerToken;
  return { inputNanos, outputNanos, totalNanos: inputNanos + outputNanos };
}

/** A settled call: charged its total unless it went over its hold, when part may be unpaid. */
export type Settled = { totalNanos: bigint; overHoldNanos: bigint; unpaidNanos: bigint };

type SettledRow = { completion_id: string; over_hold_nanos: string; unpaid_nanos: string };

/** A call as app.settle_calls takes it: its hold, the completion to record and its costs (JSON numbers as strings). */
export type SettlementRow = ReturnType<typeof settlementRow>;

export function settlementRow(call: Metered) {
  const cost = costOf(call);
  return {
    reservation_id: call.reservationId,
    completion_id: call.completionId,
    created_at: call.now.toISOString(),
    model: call.model,
    estimated_input_tokens: call.estimatedInputTokens,
    input_tokens: call.inputTokens,
    cached_input_tokens: call.cachedInputTokens,
    estimated_input_cost_nanos: (BigInt(call.estimatedInputTokens) * call.prices.inputNanosPerToken).toString(),
    input_cost_nanos: cost.inputNanos.toString(),
    output_tokens: call.outputTokens,
    output_cost_nanos: cost.outputNanos.toString(),
    total_cost_nanos: cost.totalNanos.toString(),
    usage_estimated: call.usageEstimated,
    price_version: call.priceVersion,
    provider: call.provider,
    client: call.caller.client,
    client_network: networkOf(call.caller.client),
    end_user: call.caller.endUser,
  };
}

/**
 * Settles rows of one key and period in one round trip (app.settle_calls), in their order, at `now`
 * (by which grants expire and auto top-up months turn); what each settled as, by completion id.
 * When the organisation has grants past their expiry that the sweep has not taken yet, the
 * settlement is refused with nothing changed (MW410): they are swept now, and it settles again.
 */
export async function settleRows(
  db: Database,
  batch: { organizationId: string; publishableKeyId: string; periodStart: string },
  rows: SettlementRow[],
  now: Date,
): Promise<Map<string, Omit<Settled, 'totalNanos'>>> {
  const ordered = rows.map((row, ord) => ({ ...row, ord }));
  const settle = () =>
    db.execute(sql`select * from app.settle_calls(
      ${batch.organizationId}::uuid, ${batch.publishableKeyId}::uuid, ${batch.periodStart}::date, ${JSON.stringify(ordered)}::jsonb,
      ${now.toISOString()}::timestamptz)`);
  const result = await settle().catch(async (error: unknown) => {
    if (sqlErrorOf(error).code !== 'MW410') throw error;
    await expireGrants(db, now, batch.organizationId);
    return settle();
  });
  return new Map(
    rowsOf<SettledRow>(result).map((row) => [row.completion_id, { overHoldNanos: BigInt(row.over_hold_nanos), unpaidNanos: BigInt(row.unpaid_nanos) }]),
  );
}

type Expired = { id: string; organization_id: string; publishable_key_id: string; period_start: string; forwarded: SettlementRow | null };

/**
 * Reservations whose instance stopped before settling them (a crash, or settlements that failed
 * for good), once expired: a call the provider had (forwarded.ts) is charged what was reserved
 * for it, flagged as estimated, since the provider may bill all of it; any other hold is released.
 */
export async function releaseExpired(db: Database, now: Date): Promise<number> {
  const expired = rowsOf<Expired>(
    await db.execute(sql`select id, organization_id, publishable_key_id, period_start::text, forwarded
      from app.reservations where expires_at < ${now.toISOString()}::timestamptz limit 500`),
  );
  await release(
    db,
    expired.filter((hold) => !hold.forwarded).map((hold) => ({ organizationId: hold.organization_id, id: hold.id })),
  );
  const byKey = new Map<string, Expired[]>();
  for (const hold of expired.filter((candidate) => candidate.forwarded)) {
    const name = `${hold.publishable_key_id} ${hold.period_start}`;
    byKey.set(name, [...(byKey.get(name) ?? []), hold]);
  }
  for (const holds of byKey.values()) {
    const [first] = holds as [Expired];
    const batch = { organizationId: first.organization_id, publishableKeyId: first.publishable_key_id, periodStart: first.period_start };
    await settleRows(
      db,
      batch,
      holds.map((hold) => hold.forwarded!),
      now,
    );
  }
  return expired.length;
}

import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { periodStart } from '../money.js';
import { batchBy, type Outcome } from './batch.js';
import type { GatewayKey } from './find-key.js';
import { pgArray, rowsOf, sqlStateOf } from './sql-values.js';

export type Prices = { inputNanosPerToken: bigint; outputNanosPerToken: bigint };

/** Why a call is refused before it reaches the model: the organisation's credit or the key's budget. */
export class Refusal extends Error {
  constructor(readonly reason: 'credit' | 'budget') {
    super(reason === 'credit' ? 'insufficient credit' : 'key budget exhausted');
  }
}

export type Admission = { reservationId: string; maxTokens: number; reservedNanos: bigint; periodStart: string };

/** Reservations outlive the slowest upstream call; a crashed instance's are swept after this (RESERVATION_TTL_MS). */
export const reservationLifetimeMs = 10 * 60 * 1000;

/** The most output a call may be admitted for when it names no max_tokens. */
const maxAdmittedTokens = 1_000_000n;

type Hold = { key: GatewayKey; period: string; reservationId: string; amount: bigint; expiresAt: Date };

/** The refusal app.reserve_calls raised, if that is what `error` is. */
function refusalOf(error: unknown): Refusal | undefined {
  const state = sqlStateOf(error);
  return state === 'MW402' ? new Refusal('credit') : state === 'MW429' ? new Refusal('budget') : undefined;
}

/** Reserves all holds of one key and period in one round trip, or none (the first refusal is thrown). */
async function reserveAll(db: Database, holds: Hold[]): Promise<void> {
  const [first] = holds as [Hold];
  try {
    await db.execute(sql`select app.reserve_calls(
      ${first.key.organizationId}::uuid, ${first.key.id}::uuid, ${first.period}::date, ${first.key.spendLimitNanos.toString()}::bigint,
      ${pgArray(holds.map((hold) => hold.reservationId))}::uuid[], ${pgArray(holds.map((hold) => hold.amount))}::bigint[],
      ${first.expiresAt.toISOString()}::timestamptz)`);
  } catch (error) {
    throw refusalOf(error) ?? error;
  }
}

/**
 * A batch of concurrent holds on one key: reserved together when the credit and the budget can hold
 * them all; otherwise (near exhaustion) one by one, so each is admitted or refused on its own.
 */
async function reserveBatch(db: Database, holds: Hold[]): Promise<Outcome<void>[]> {
  if (holds.length > 1) {
    try {
      await reserveAll(db, holds);
      return holds.map(() => ({ ok: true, value: undefined }));
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
    }
  }
  const outcomes: Outcome<void>[] = [];
  for (const hold of holds) {
    try {
      await reserveAll(db, [hold]);
      outcomes.push({ ok: true, value: undefined });
    } catch (error) {
      outcomes.push({ ok: false, error });
    }
  }
  return outcomes;
}

const reservers = new WeakMap<Database, (hold: Hold) => Promise<void>>();

function reserverFor(db: Database) {
  let reserve = reservers.get(db);
  if (!reserve) {
    reserve = batchBy((hold: Hold) => `${hold.key.id}/${hold.period}`, (holds) => reserveBatch(db, holds));
    reservers.set(db, reserve);
  }
  return reserve;
}

/** What the credit and the key's budget can still pay, now. */
async function available(db: Database, key: GatewayKey, period: string): Promise<{ credit: bigint; budget: bigint }> {
  const result = await db.execute(sql`select
    (select balance_nanos - reserved_nanos from app.credit_balances where organization_id = ${key.organizationId}::uuid)::text as credit,
    (select spent_nanos + reserved_nanos from app.key_spend where publishable_key_id = ${key.id}::uuid and period_start = ${period}::date)::text as spent`);
  const [row] = rowsOf<{ credit: string | null; spent: string | null }>(result);
  return { credit: BigInt(row?.credit ?? 0), budget: key.spendLimitNanos - BigInt(row?.spent ?? 0) };
}

type AdmitInput = { key: GatewayKey; prices: Prices; inputTokens: number; requestedMaxTokens: number | undefined; now: Date; reservationTtlMs?: number };

/**
 * Admits a call: the worst case (estimated input + max_tokens output) is reserved against both the
 * organisation's credit and the key's monthly budget, atomically in the database, so no number of
 * instances admitting at once can overspend either. `max_tokens` that is absent or unaffordable is
 * lowered to what both can pay; nothing affordable → Refusal.
 */
export async function admit(db: Database, input: AdmitInput): Promise<Admission> {
  const period = periodStart(input.now);
  const inputCost = BigInt(input.inputTokens) * input.prices.inputNanosPerToken;
  const hold = (maxTokens: bigint): Hold => ({
    key: input.key,
    period,
    reservationId: randomUUID(),
    amount: inputCost + maxTokens * input.prices.outputNanosPerToken,
    expiresAt: new Date(input.now.getTime() + (input.reservationTtlMs ?? reservationLifetimeMs)),
  });
  const admitted = (held: Hold, maxTokens: bigint): Admission => ({
    reservationId: held.reservationId,
    maxTokens: Number(maxTokens),
    reservedNanos: held.amount,
    periodStart: period,
  });

  // The common case: the call names its max_tokens and both can pay for it.
  if (input.requestedMaxTokens !== undefined) {
    const requested = BigInt(input.requestedMaxTokens);
    const held = hold(requested);
    try {
      await reserverFor(db)(held);
      return admitted(held, requested);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
    }
  }

  // Otherwise cap max_tokens to what is free now; another call may take it first, so look again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const { credit, budget } = await available(db, input.key, period);
    const binding: Refusal['reason'] = credit <= budget ? 'credit' : 'budget';
    const affordable = credit < budget ? credit : budget;
    const perToken = input.prices.outputNanosPerToken > 0n ? input.prices.outputNanosPerToken : 1n;
    const affordableTokens = affordable > inputCost ? (affordable - inputCost) / perToken : 0n;
    if (affordableTokens < 1n) throw new Refusal(binding);
    const wanted = input.requestedMaxTokens !== undefined ? BigInt(input.requestedMaxTokens) : maxAdmittedTokens;
    const maxTokens = [wanted, affordableTokens, maxAdmittedTokens].reduce((low, value) => (value < low ? value : low));
    const held = hold(maxTokens);
    try {
      await reserverFor(db)(held);
      return admitted(held, maxTokens);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
    }
  }
  throw new Refusal('budget');
}

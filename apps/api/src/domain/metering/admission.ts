import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { periodStart, type Prices } from '../money.js';
import { admitHolds, type PresentedKey, Refusal, StaleKey } from './admit-calls.js';
import { type Allowance, allowancesOf, type Caller } from './allowances.js';
import { batchBy, type Outcome } from './batch.js';
import type { GatewayKey } from './find-key.js';
import type { HoldStocks } from './hold-stock.js';
import type { Settlements } from './settle-after-answer.js';
import { pgTextArray, rowsOf } from './sql-values.js';

export type Admission = { reservationId: string; maxTokens: number; reservedNanos: bigint; periodStart: string };

/** How often, and how long apart, a call refused while other calls hold credit or budget looks again. */
const holdWaits = 10;
const holdWaitMs = 10;

type Hold = { presented: PresentedKey; now: Date; period: string; allowances: Allowance[]; reservationId: string; amount: bigint; expiresAt: Date };

/** Reserves all holds of one presented key and period in one round trip, or none (the first refusal is thrown). */
function reserveAll(db: Database, holds: Hold[]): Promise<void> {
  const [first] = holds as [Hold];
  return admitHolds(db, {
    presented: first.presented,
    now: first.now,
    period: first.period,
    ids: holds.map((hold) => hold.reservationId),
    amounts: holds.map((hold) => hold.amount),
    expiresAt: first.expiresAt,
    allowances: first.allowances,
  });
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
  // Near exhaustion: each hold on its own.
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

type Free = { refusal: Refusal; amount: bigint };

/**
 * What the credit, the key's budget and the caller's allowances (the budget as the key row has it
 * now) can still pay, the tightest of them, and whether other calls' holds are part of what they cannot.
 */
async function available(db: Database, key: GatewayKey, period: string, allowances: Allowance[], now: Date): Promise<{ tightest: Free; othersHold: boolean }> {
  // Each allowance by its primary key, a row the caller has not spent from yet as null: read as a
  // join, the planner scanned every caller's row of the key (all of a day's visitors). Grants past
  // their expiry are not free, as app.admit_calls counts them.
  const result = await db.execute(sql`select b.balance_nanos - b.reserved_nanos
        - case when b.promotional_nanos > 0 then app.expired_grant_credit(b.organization_id, ${now.toISOString()}::timestamptz) else 0 end as credit,
      b.reserved_nanos as credit_held,
      k.spend_limit_nanos - coalesce(s.spent_nanos + s.reserved_nanos, 0) as budget, coalesce(s.reserved_nanos, 0) as budget_held,
      (select coalesce(json_object_agg(named.allowance, (select json_build_array((c.spent_nanos + c.reserved_nanos)::text, c.reserved_nanos::text)
          from app.caller_spend c where c.organization_id = k.organization_id and c.publishable_key_id = k.id and c.allowance = named.allowance)), '{}')
        from unnest(${pgTextArray(allowances.map((allowance) => allowance.name))}::text[]) as named(allowance)) as allowances
    from app.publishable_keys k
    left join app.credit_balances b on b.organization_id = k.organization_id
    left join app.key_spend s on s.organization_id = k.organization_id and s.publishable_key_id = k.id and s.period_start = ${period}::date
    where k.organization_id = ${key.organizationId}::uuid and k.id = ${key.id}::uuid`);
  type Row = Record<'credit' | 'credit_held' | 'budget' | 'budget_held', string | null> & {
    allowances: Record<string, [used: string, held: string] | null> | string;
  };
  const [row] = rowsOf<Row>(result);
  if (!row) throw new StaleKey();
  // node-postgres parses json; PGlite may hand it over as text.
  const used = typeof row.allowances === 'string' ? (JSON.parse(row.allowances) as Exclude<Row['allowances'], string>) : row.allowances;
  const frees: Free[] = [
    { refusal: new Refusal('credit'), amount: BigInt(row.credit ?? 0) },
    { refusal: new Refusal('budget'), amount: BigInt(row.budget ?? 0) },
    ...allowances.map((allowance) => ({ refusal: new Refusal('allowance', allowance), amount: allowance.limitNanos - BigInt(used[allowance.name]?.[0] ?? 0) })),
  ];
  const held = [row.credit_held, row.budget_held, ...Object.values(used).map((entry) => entry?.[1])].some((amount) => BigInt(amount ?? 0) > 0n);
  return { tightest: frees.reduce((low, free) => (free.amount < low.amount ? free : low)), othersHold: held };
}

type AdmitInput = {
  presented: PresentedKey;
  prices: Prices;
  inputTokens: number;
  /** `n`: the output limit is reserved once per choice. */
  choices: number;
  /** The output limit per choice the client named (within the model's), or undefined. */
  requestedMaxTokens: number | undefined;
  /** The model's own output limit (or the key's, if lower): the most a call naming none is admitted for. */
  maxOutputTokens: number;
  /** Who calls: a key may cap what each client address and each end user spends. */
  caller: Caller;
  now: Date;
};

/**
 * Admits a call: the worst case (estimated input + max_tokens output per choice) is reserved against
 * the organisation's credit, the key's monthly budget and the caller's allowances the key sets
 * (allowances.ts), atomically in the database, so no number of instances admitting at
 * once can overspend any. `max_tokens` that is absent or
 * unaffordable is lowered to what both can pay; nothing affordable → Refusal. A key that changed
 * since the caller checked it → StaleKey, with nothing reserved.
 */
export type Admit = (input: AdmitInput) => Promise<Admission>;

/**
 * This instance's admission: holds of one key reserved together when their calls arrive together,
 * from the key's stock of holds reserved ahead when one fits.
 */
export function createAdmission(db: Database, parts: { stocks: HoldStocks; settlements: Settlements; reservationTtlMs: number }): Admit {
  // A batch shares the value presented and the key row checked, which the database checks once for all.
  const reserve = batchBy(
    (hold: Hold) => `${hold.period} ${hold.presented.value} ${hold.presented.key.version} ${hold.allowances.map((allowance) => allowance.name).join(' ')}`,
    (holds) => reserveBatch(db, holds),
  );
  const admissionParts = { ...parts, reserve };
  return (input) => admit(db, admissionParts, input);
}

type AdmissionParts = { stocks: HoldStocks; settlements: Settlements; reservationTtlMs: number; reserve: (hold: Hold) => Promise<void> };

async function admit(db: Database, parts: AdmissionParts, input: AdmitInput): Promise<Admission> {
  const period = periodStart(input.now);
  const inputCost = BigInt(input.inputTokens) * input.prices.inputNanosPerToken;
  // What one token of limit costs: one per choice.
  const outputPerToken = BigInt(input.choices) * input.prices.outputNanosPerToken;
  const maxOutputTokens = BigInt(input.maxOutputTokens);
  const key = input.presented.key;
  const allowances = allowancesOf(key, input.caller, input.now);
  const ttlMs = parts.reservationTtlMs;
  const hold = (maxTokens: bigint): Hold => ({
    presented: input.presented,
    now: input.now,
    period,
    allowances,
    reservationId: randomUUID(),
    amount: inputCost + maxTokens * outputPerToken,
    expiresAt: new Date(input.now.getTime() + ttlMs),
  });
  const admitted = (held: Hold, maxTokens: bigint): Admission => ({
    reservationId: held.reservationId,
    maxTokens: Number(maxTokens),
    reservedNanos: held.amount,
    periodStart: period,
  });

  // The common case: the call names its max_tokens and both can pay for it; from this instance's
  // stock of holds for the key when it has one that fits, else reserved now.
  if (input.requestedMaxTokens !== undefined) {
    const requested = BigInt(Math.min(input.requestedMaxTokens, input.maxOutputTokens));
    const worst = inputCost + requested * outputPerToken;
    const stocked = parts.stocks.take(input.presented, period, worst, allowances);
    if (stocked) return { reservationId: stocked.id, maxTokens: Number(requested), reservedNanos: stocked.amount, periodStart: period };
    const held = hold(requested);
    const startedAt = performance.now();
    try {
      await parts.reserve(held);
      parts.stocks.afterAdmission(input.presented, period, held.amount, startedAt, ttlMs, allowances);
      return admitted(held, requested);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
    }
  }

  // Otherwise cap max_tokens to what is free now. Answers go out before their settlement: this
  // instance's earlier calls of the organisation are settled first, and its stocks given back,
  // so neither's holds count.
  await Promise.all([parts.settlements.settling(key.organizationId), parts.stocks.giveBack(key.organizationId)]);
  for (let attempt = 0, waited = 0; attempt < 3;) {
    const { tightest, othersHold } = await available(db, key, period, allowances, input.now);
    const affordable = tightest.amount;
    const perToken = outputPerToken > 0n ? outputPerToken : 1n;
    const affordableTokens = affordable > inputCost ? (affordable - inputCost) / perToken : 0n;
    if (affordableTokens < 1n) {
      // Held by a call answered a moment ago on another instance, perhaps: its settlement gives it back within milliseconds.
      if (othersHold && waited < holdWaits) {
        waited++;
        await new Promise((resolve) => setTimeout(resolve, holdWaitMs));
        continue;
      }
      throw tightest.refusal;
    }
    attempt++;
    const wanted = input.requestedMaxTokens !== undefined ? BigInt(input.requestedMaxTokens) : maxOutputTokens;
    const maxTokens = [wanted, affordableTokens, maxOutputTokens].reduce((low, value) => (value < low ? value : low));
    const held = hold(maxTokens);
    try {
      await parts.reserve(held);
      return admitted(held, maxTokens);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
    }
  }
  throw new Refusal('budget');
}

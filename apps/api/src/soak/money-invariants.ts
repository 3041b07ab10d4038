import type { Database } from '@meterway/db';
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf } from '../domain/metering/sql-values.js';
import type { UpstreamCall } from './soak-upstream.js';

/** How many invariant checks ran and the ones that failed, described. */
export type InvariantReport = { checks: number; violations: string[] };

type Check = [ok: boolean, what: () => string];

const rows = async <Row>(db: Database, query: SQL) => rowsOf<Row>(await db.execute(query));

/**
 * The money rules, checked on one consistent snapshot of the database (so they can run while
 * calls, top-ups and key edits are in flight). They hold at every instant:
 * - every organisation: balance = its ledger sum, balance ≥ 0, what calls hold ≤ balance, and its
 *   reserved total = the sum of its open reservations;
 * - every key and month: spent + reserved ≤ the key's budget (budgets here only ever rise) plus
 *   what providers reported above their calls' holds, and reserved = its open reservations;
 *   every key's spend = the cost of its recorded completions;
 * - every completion with a cost is charged by exactly one usage charge of its own organisation
 *   (the one it names), and every usage charge is exactly what its completions cost less what the
 *   credit could not pay of over-hold reports, and charges at least one;
 * - every paid checkout is credited exactly once, for its amount, to its own organisation, and
 *   nothing else is; every payment intent recorded on a top-up or an auto top-up charge is in
 *   payment_objects under that organisation (where refunds and disputes find it).
 * `settled`: nothing is in flight any more, so no reservation may remain and nothing may be held.
 */
export async function checkMoney(db: Database, options: { settled?: boolean } = {}): Promise<InvariantReport> {
  return db.transaction(
    async (tx) => {
      const checks: Check[] = [];
      const organisations = await rows<{ id: string; balance: string; reserved: string; ledger: string; held: string }>(
        tx,
        sql`select b.organization_id as id, b.balance_nanos::text as balance, b.reserved_nanos::text as reserved,
          (select coalesce(sum(e.amount_nanos), 0) from app.credit_entries e where e.organization_id = b.organization_id)::text as ledger,
          (select coalesce(sum(r.amount_nanos), 0) from app.reservations r where r.organization_id = b.organization_id)::text as held
        from app.credit_balances b`,
      );
      for (const org of organisations) {
        const [balance, reserved, ledger, held] = [org.balance, org.reserved, org.ledger, org.held].map(BigInt) as [bigint, bigint, bigint, bigint];
        checks.push(
          [balance === ledger, () => `organisation ${org.id}: balance ${balance} ≠ ledger sum ${ledger}`],
          [balance >= 0n, () => `organisation ${org.id}: balance ${balance} < 0`],
          [reserved >= 0n && reserved <= balance, () => `organisation ${org.id}: ${reserved} held against a balance of ${balance}`],
          [reserved === held, () => `organisation ${org.id}: reserved ${reserved} ≠ open reservations ${held}`],
        );
        if (options.settled) checks.push([reserved === 0n, () => `organisation ${org.id}: ${reserved} still held after every call settled`]);
      }

      const spends = await rows<{ key: string; period: string; limit: string; spent: string; reserved: string; held: string; over: string }>(
        tx,
        sql`select s.publishable_key_id as key, s.period_start::text as period, k.spend_limit_nanos::text as limit,
          s.spent_nanos::text as spent, s.reserved_nanos::text as reserved,
          (select coalesce(sum(r.amount_nanos), 0) from app.reservations r
            where r.organization_id = s.organization_id and r.publishable_key_id = s.publishable_key_id and r.period_start = s.period_start)::text as held,
          (select coalesce(sum(c.over_hold_nanos), 0) from app.chat_completions c where c.organization_id = s.organization_id and c.publishable_key_id = s.publishable_key_id)::text as over
        from app.key_spend s join app.publishable_keys k on k.organization_id = s.organization_id and k.id = s.publishable_key_id`,
      );
      for (const spend of spends) {
        const [limit, spent, reserved, held, over] = [spend.limit, spend.spent, spend.reserved, spend.held, spend.over].map(BigInt) as [
          bigint,
          bigint,
          bigint,
          bigint,
          bigint,
        ];
        checks.push(
          // Only what providers reported above their calls' holds (recorded on the rows) may go past a budget.
          [
            spent + reserved <= limit + over,
            () => `key ${spend.key} (${spend.period}): spent ${spent} + held ${reserved} > budget ${limit} + over-hold charges ${over}`,
          ],
          [reserved === held, () => `key ${spend.key} (${spend.period}): reserved ${reserved} ≠ open reservations ${held}`],
        );
        if (options.settled) checks.push([reserved === 0n, () => `key ${spend.key}: ${reserved} still held after every call settled`]);
      }

      // A caller's allowance (an address's day, an end user's day or month): held like the budget, never passed but for over-hold charges.
      const allowances = await rows<{ key: string; allowance: string; limit: string | null; spent: string; reserved: string; held: string; over: string }>(
        tx,
        sql`select a.publishable_key_id as key, a.allowance,
          (case when split_part(a.allowance, ' ', 2) = 'address' then k.client_spend_per_day_nanos
            when length(split_part(a.allowance, ' ', 1)) = 10 then k.end_user_spend_per_day_nanos
            else k.end_user_spend_per_month_nanos end)::text as limit,
          a.spent_nanos::text as spent, a.reserved_nanos::text as reserved,
          (select coalesce(sum(r.amount_nanos), 0) from app.reservations r
            where r.organization_id = a.organization_id and r.publishable_key_id = a.publishable_key_id and a.allowance = any(r.allowances))::text as held,
          (select coalesce(sum(c.over_hold_nanos), 0) from app.chat_completions c where c.organization_id = a.organization_id and c.publishable_key_id = a.publishable_key_id)::text as over
        from app.caller_spend a join app.publishable_keys k on k.organization_id = a.organization_id and k.id = a.publishable_key_id`,
      );
      for (const allowance of allowances) {
        const [spent, reserved, held, over] = [allowance.spent, allowance.reserved, allowance.held, allowance.over].map(BigInt) as [
          bigint,
          bigint,
          bigint,
          bigint,
        ];
        const name = `key ${allowance.key}, allowance ${allowance.allowance}`;
        checks.push([reserved === held, () => `${name}: reserved ${reserved} ≠ open reservations ${held}`]);
        if (allowance.limit !== null) {
          const limit = BigInt(allowance.limit);
          checks.push([spent + reserved <= limit + over, () => `${name}: spent ${spent} + held ${reserved} > allowance ${limit} + over-hold charges ${over}`]);
        }
        if (options.settled) checks.push([reserved === 0n, () => `${name}: ${reserved} still held after every call settled`]);
      }

      // The callers view counts every settled call once, by its address.
      const callers = await rows<{ key: string; calls: string; counted: string; spent: string; cost: string }>(
        tx,
        sql`select k.id as key,
          (select count(*) from app.chat_completions c where c.organization_id = k.organization_id and c.publishable_key_id = k.id and c.client_network is not null)::text as calls,
          (select coalesce(sum(h.calls), 0) from app.caller_hours h where h.organization_id = k.organization_id and h.publishable_key_id = k.id and h.kind = 'address')::text as counted,
          (select coalesce(sum(h.spent_nanos), 0) from app.caller_hours h where h.organization_id = k.organization_id and h.publishable_key_id = k.id and h.kind = 'address')::text as spent,
          (select coalesce(sum(c.total_cost_nanos), 0) from app.chat_completions c where c.organization_id = k.organization_id and c.publishable_key_id = k.id and c.client_network is not null)::text as cost
        from app.publishable_keys k`,
      );
      for (const key of callers) {
        checks.push([
          key.calls === key.counted && key.spent === key.cost,
          () => `key ${key.key}: callers count ${key.counted} calls, ${key.spent} spent; its rows ${key.calls}, ${key.cost}`,
        ]);
      }

      const keys = await rows<{ key: string; spent: string; cost: string }>(
        tx,
        sql`select k.id as key,
          (select coalesce(sum(s.spent_nanos), 0) from app.key_spend s where s.organization_id = k.organization_id and s.publishable_key_id = k.id)::text as spent,
          (select coalesce(sum(c.total_cost_nanos), 0) from app.chat_completions c where c.organization_id = k.organization_id and c.publishable_key_id = k.id)::text as cost
        from app.publishable_keys k`,
      );
      for (const key of keys) checks.push([key.spent === key.cost, () => `key ${key.key}: spent ${key.spent} ≠ cost of its completions ${key.cost}`]);

      // Every completion that cost something names its organisation's usage charge, which paid its
      // cost but for what the credit could not pay (unpaid on the row), and made that owed.
      const completions = await rows<{ id: string; cost: string; charge: string | null; ownCharge: boolean }>(
        tx,
        sql`select c.id, coalesce(c.total_cost_nanos, -1)::text as cost, c.usage_charge_id as charge,
          coalesce(e.organization_id = c.organization_id and e.kind = 'usage_charge', false) as "ownCharge"
        from app.chat_completions c left join app.credit_entries e on e.organization_id = c.organization_id and e.id = c.usage_charge_id`,
      );
      for (const completion of completions) {
        const costly = BigInt(completion.cost) > 0n;
        checks.push([
          costly ? completion.ownCharge : completion.charge === null,
          () =>
            `completion ${completion.id}: cost ${completion.cost}, charged by ${completion.charge ?? 'no entry'}${costly && !completion.ownCharge ? ' (not a usage charge of its organisation)' : ''}`,
        ]);
      }
      const charges = await rows<{ id: string; charged: string; due: string; owed: string; unpaid: string; completions: number }>(
        tx,
        sql`select e.id, (-e.amount_nanos)::text as charged, coalesce(sum(c.total_cost_nanos - c.unpaid_nanos), 0)::text as due,
          e.owed_nanos::text as owed, coalesce(sum(c.unpaid_nanos), 0)::text as unpaid, count(c.id)::int as completions
        from app.credit_entries e left join app.chat_completions c on c.organization_id = e.organization_id and c.usage_charge_id = e.id
        where e.kind = 'usage_charge'
        group by e.id, e.amount_nanos, e.owed_nanos`,
      );
      for (const charge of charges) {
        checks.push([
          charge.completions > 0 && charge.charged === charge.due && charge.owed === charge.unpaid,
          () =>
            `usage charge ${charge.id}: ${charge.charged} charged and ${charge.owed} owed for ${charge.completions} completion(s) due ${charge.due} with ${charge.unpaid} unpaid`,
        ]);
      }

      const checkouts = await rows<{ id: string; status: string; credit: string; entries: number; credited: string }>(
        tx,
        sql`select s.id, s.status, s.credit_nanos::text as credit, count(e.id)::int as entries, coalesce(sum(e.amount_nanos), 0)::text as credited
        from app.checkout_sessions s
        left join app.credit_entries e on e.organization_id = s.organization_id and e.kind = 'top_up' and e.reference = s.id
        group by s.organization_id, s.id, s.status, s.credit_nanos`,
      );
      for (const checkout of checkouts) {
        const paid = checkout.status === 'SUCCEEDED';
        checks.push([
          paid ? checkout.entries === 1 && checkout.credited === checkout.credit : checkout.entries === 0,
          () => `checkout ${checkout.id} (${checkout.status}, ${checkout.credit}): ${checkout.entries} top-up(s) totalling ${checkout.credited}`,
        ]);
      }

      const undirected = await rows<{ source: string; id: string; payment: string }>(
        tx,
        sql`select 'checkout_sessions' as source, s.id, s.payment_intent_id as payment from app.checkout_sessions s
            where s.payment_intent_id is not null and not exists (select from app.payment_objects p
              where p.provider = s.provider and p.id = s.payment_intent_id and p.organization_id = s.organization_id)
          union all
          select 'auto_top_up_charges', c.id::text, c.payment_intent_id from app.auto_top_up_charges c
            where c.payment_intent_id is not null and not exists (select from app.payment_objects p
              where p.provider = c.provider and p.id = c.payment_intent_id and p.organization_id = c.organization_id)`,
      );
      checks.push([
        undirected.length === 0,
        () => `payments missing from payment_objects: ${undirected.map((row) => `${row.source} ${row.id} (${row.payment})`).join(', ')}`,
      ]);

      if (options.settled) {
        const [open] = await rows<{ count: number }>(tx, sql`select count(*)::int as count from app.reservations`);
        checks.push([open?.count === 0, () => `${open?.count} reservations left after every call settled`]);
      }
      return { checks: checks.length, violations: checks.filter(([ok]) => !ok).map(([, what]) => what()) };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}

export async function openReservations(db: Database): Promise<number> {
  const [open] = await rows<{ count: number }>(db, sql`select count(*)::int as count from app.reservations`);
  return open?.count ?? 0;
}

/**
 * Every usage the provider reported is charged as exactly one recorded completion with the
 * provider's own token counts (`checkMoney` then proves that completion charged once). `answers`
 * maps each upstream call id to the completion ids clients received for it; a call whose client
 * left before its answer has no id to match by, so it must match, by its token counts, one of
 * the completions no client received — and no such completion may be left over.
 */
export async function checkUsageCharged(db: Database, calls: Iterable<UpstreamCall>, answers: Map<string, string[]>): Promise<InvariantReport> {
  const recorded = new Map(
    (
      await rows<{ id: string; inputTokens: number; outputTokens: number; usageEstimated: boolean }>(
        db,
        sql`select id, input_tokens as "inputTokens", output_tokens as "outputTokens", usage_estimated as "usageEstimated" from app.chat_completions`,
      )
    ).map((row) => [row.id, row]),
  );
  const received = new Set([...answers.values()].flat());
  const tokensOf = (input: number, output: number) => `${input}+${output}`;
  const unreceived = new Map<string, number>();
  for (const row of recorded.values()) {
    if (received.has(row.id) || row.usageEstimated) continue;
    const tokens = tokensOf(row.inputTokens, row.outputTokens);
    unreceived.set(tokens, (unreceived.get(tokens) ?? 0) + 1);
  }
  const checks: Check[] = [];
  for (const call of calls) {
    if (!call.usageSent) continue;
    const completionIds = answers.get(call.id);
    if (!completionIds) {
      const tokens = tokensOf(call.promptTokens, call.completionTokens);
      const left = unreceived.get(tokens) ?? 0;
      if (left > 0) unreceived.set(tokens, left - 1);
      checks.push([left > 0, () => `upstream call ${call.id} (${tokens} tokens), whose client left: no completion no client received has its counts`]);
      continue;
    }
    const completion = completionIds.length === 1 ? recorded.get(completionIds[0]!) : undefined;
    checks.push([
      completion !== undefined &&
        completion.inputTokens === call.promptTokens &&
        completion.outputTokens === call.completionTokens &&
        !completion.usageEstimated,
      () =>
        `upstream call ${call.id} (${call.promptTokens}+${call.completionTokens} tokens): answered as [${completionIds.join(', ')}], recorded as ${JSON.stringify(completion ?? null)}`,
    ]);
  }
  const leftOver = [...unreceived].filter(([, count]) => count > 0);
  checks.push([leftOver.length === 0, () => `completions charged for no upstream usage: ${JSON.stringify(leftOver)}`]);
  return { checks: checks.length, violations: checks.filter(([ok]) => !ok).map(([, what]) => what()) };
}

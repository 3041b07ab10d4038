import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../domain/metering/sql-values.js';
import { checkMoney, type InvariantReport } from '../soak/money-invariants.js';
import type { KeyTally } from './load-plan.js';

type Check = [ok: boolean, what: () => string];
const report = (checks: Check[]): InvariantReport => ({ checks: checks.length, violations: checks.filter(([ok]) => !ok).map(([, what]) => what()) });

/** Holds still open, and those open past their lifetime (which a sweeper should have released). */
export async function openHolds(db: Database) {
  const [row] = rowsOf<{ open: number; expired: number }>(
    await db.execute(sql`select count(*)::int as open, (count(*) filter (where expires_at < now()))::int as expired from app.reservations`),
  );
  return row ?? { open: 0, expired: 0 };
}

/**
 * What the clients saw against what the database recorded, once every call has settled:
 * `checkMoney` (balance = ledger ≥ 0, every completion charged once, every paid checkout credited
 * once, no key over budget, nothing held); every organisation's balance = its top-ups − what its
 * calls were charged (+ any other ledger entries, listed); every complete 200 answer has its one
 * usage row, and a key has no more rows than its 200s and the calls lost with the instance killed
 * (a refusal an instance answered, a 503 among them, is charged nothing); every accepted sandbox
 * payment has succeeded.
 */
export async function checkAfterLoad(db: Database, keys: Map<string, KeyTally>, paid: string[]): Promise<InvariantReport> {
  const money = await checkMoney(db, { settled: true });
  const checks: Check[] = [];

  const organisations = rowsOf<{ id: string; balance: string; topUps: string; charged: string; other: string }>(
    await db.execute(sql`select b.organization_id as id, b.balance_nanos::text as balance,
      (select coalesce(sum(e.amount_nanos), 0) from app.credit_entries e where e.organization_id = b.organization_id and e.kind = 'top_up')::text as "topUps",
      (select coalesce(sum(c.total_cost_nanos - c.unpaid_nanos), 0) from app.chat_completions c where c.organization_id = b.organization_id)::text as charged,
      (select coalesce(sum(e.amount_nanos), 0) from app.credit_entries e
        where e.organization_id = b.organization_id and e.kind not in ('top_up', 'usage_charge'))::text as other
      from app.credit_balances b`),
  );
  for (const org of organisations) {
    const [balance, topUps, charged, other] = [org.balance, org.topUps, org.charged, org.other].map(BigInt) as [bigint, bigint, bigint, bigint];
    checks.push([
      balance === topUps - charged + other,
      () => `organisation ${org.id}: balance ${balance} ≠ top-ups ${topUps} − charged ${charged} + other entries ${other}`,
    ]);
  }

  const rows = rowsOf<{ id: string; key: string }>(await db.execute(sql`select id, publishable_key_id as key from app.chat_completions`));
  const rowsByKey = new Map<string, Set<string>>();
  for (const row of rows) rowsByKey.set(row.key, (rowsByKey.get(row.key) ?? new Set()).add(row.id));
  for (const [key, tally] of keys) {
    const recorded = rowsByKey.get(key) ?? new Set<string>();
    const missing = tally.completionIds.filter((id) => !recorded.has(id));
    const extra = recorded.size - tally.completionIds.length;
    checks.push(
      [missing.length === 0, () => `key ${key}: ${missing.length} answered 200s without a usage row (${missing.slice(0, 3).join(', ')}…)`],
      [new Set(tally.completionIds).size === tally.completionIds.length, () => `key ${key}: one completion id answered twice`],
      [
        extra >= 0 && extra <= tally.cutShort + tally.lost,
        () =>
          `key ${key}: ${recorded.size} usage rows for ${tally.completionIds.length} complete 200s, ${tally.cutShort} cut short, ${tally.lost} lost ` +
          `(${tally.refused} refusals must be charged nothing)`,
      ],
    );
  }

  // The load client knows a payment by its session id alone, which is one organisation's (the key is (organization_id, id)):
  // a session id under two organisations counts as unpaid.
  const checkouts = paid.length
    ? rowsOf<{ id: string; status: string; organisations: number }>(
        await db.execute(
          sql`select id, min(status) as status, count(distinct organization_id)::int as organisations from app.checkout_sessions where id in (${sql.join(
            paid.map((id) => sql`${id}`),
            sql`, `,
          )}) group by id`,
        ),
      )
    : [];
  const succeeded = new Set(checkouts.filter((checkout) => checkout.status === 'SUCCEEDED' && checkout.organisations === 1).map((checkout) => checkout.id));
  const unpaid = paid.filter((id) => !succeeded.has(id));
  checks.push([unpaid.length === 0, () => `accepted sandbox payments not SUCCEEDED: ${unpaid.join(', ')}`]);

  const own = report(checks);
  return { checks: money.checks + own.checks, violations: [...money.violations, ...own.violations] };
}

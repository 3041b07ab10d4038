import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { forwardedRecordDelayMs } from '../domain/metering/forwarded.js';
import { rowsOf } from '../domain/metering/sql-values.js';
import { checkMoney, type InvariantReport } from '../soak/money-invariants.js';
import type { Answer, KeyTally } from './load-plan.js';

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
 * The one loss the design allows (decision 008): an instance killed with SIGKILL may leave the
 * calls it forwarded in its last 1.5 × forwardedRecordDelayMs (a record is due after the delay and
 * checked for every half of it), plus the round trip of the record that would have charged them,
 * uncharged. Answers that instance sent this soon before the kill began are excused: the window,
 * and 175 ms for that round trip under the drill's load and for the kill itself to land.
 */
export const crashWindowMs = (3 * forwardedRecordDelayMs) / 2 + 175;

/** The api instance SIGKILLed in the drill, and when the kill began (epoch ms). */
export type Killed = { instance: string; at: number };

/**
 * What the clients saw against what the database recorded, once every call has settled:
 * `checkMoney` (balance = ledger ≥ 0, every completion charged once, every paid checkout credited
 * once, no key over budget, nothing held); every organisation's balance = its top-ups − what its
 * calls were charged (+ any other ledger entries, listed); every complete 200 answer has its one
 * usage row, but for those the killed instance sent within `crashWindowMs` of its kill (counted in
 * `excused`), and a key has no rows other than its 200s' and the calls lost with the instance
 * killed (a refusal an instance answered, a 503 among them, is charged nothing); every accepted
 * sandbox payment has succeeded.
 */
export async function checkAfterLoad(
  db: Database,
  keys: Map<string, KeyTally>,
  paid: string[],
  killed: Killed | undefined,
): Promise<InvariantReport & { excused: number }> {
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
  const inCrashWindow = (answer: Answer) => answer.instance === killed?.instance && answer.at >= killed.at - crashWindowMs;
  let excused = 0;
  for (const [key, tally] of keys) {
    const recorded = rowsByKey.get(key) ?? new Set<string>();
    const answered = new Set(tally.answers.map((answer) => answer.id));
    const unrecorded = tally.answers.filter((answer) => !recorded.has(answer.id));
    const missing = unrecorded.filter((answer) => !inCrashWindow(answer));
    excused += unrecorded.length - missing.length;
    const extra = [...recorded].filter((id) => !answered.has(id)).length;
    checks.push(
      [
        missing.length === 0,
        () =>
          `key ${key}: ${missing.length} answered 200s without a usage row (${missing
            .slice(0, 3)
            .map((answer) => `${answer.id} from ${answer.instance}`)
            .join(', ')}…)`,
      ],
      [answered.size === tally.answers.length, () => `key ${key}: one completion id answered twice`],
      [
        extra <= tally.cutShort + tally.lost,
        () =>
          `key ${key}: ${extra} usage rows besides its ${tally.answers.length} complete 200s' for ${tally.cutShort} cut short and ${tally.lost} lost ` +
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
  return { checks: money.checks + own.checks, violations: [...money.violations, ...own.violations], excused };
}

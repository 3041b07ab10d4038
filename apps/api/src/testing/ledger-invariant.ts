import type { Database } from '@meterway/db';
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';

/**
 * Every organisation's balance equals the sum of its ledger entries, and none is negative; what it
 * owes equals the sum of its entries' debt changes, and an organisation that owes has no credit;
 * the promotional part of its balance is what its grants have left.
 */
export async function expectLedgerConsistent(db: Database) {
  const result = (await db.execute(sql`
    select b.organization_id, b.balance_nanos::text as balance, coalesce(sum(e.amount_nanos), 0)::text as ledger,
      b.owed_nanos::text as owed, coalesce(sum(e.owed_nanos), 0)::text as ledger_owed
    from app.credit_balances b left join app.credit_entries e on e.organization_id = b.organization_id
    group by b.organization_id, b.balance_nanos, b.owed_nanos
    having b.balance_nanos <> coalesce(sum(e.amount_nanos), 0) or b.balance_nanos < 0
      or b.owed_nanos <> coalesce(sum(e.owed_nanos), 0) or b.owed_nanos < 0 or (b.owed_nanos > 0 and b.balance_nanos > 0)
  `)) as unknown as { rows: unknown[] };
  expect(result.rows).toEqual([]);
  const orphans = (await db.execute(sql`
    select e.organization_id from app.credit_entries e
    left join app.credit_balances b on b.organization_id = e.organization_id
    where b.organization_id is null limit 1
  `)) as unknown as { rows: unknown[] };
  expect(orphans.rows).toEqual([]);
  const promotional = (await db.execute(sql`
    select b.organization_id, b.promotional_nanos::text as promotional, coalesce(sum(g.remaining_nanos), 0)::text as grants_left
    from app.credit_balances b left join app.credit_grants g on g.organization_id = b.organization_id
    group by b.organization_id, b.promotional_nanos
    having b.promotional_nanos <> coalesce(sum(g.remaining_nanos), 0)
  `)) as unknown as { rows: unknown[] };
  expect(promotional.rows).toEqual([]);
}

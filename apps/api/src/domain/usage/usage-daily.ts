import type { UsageDaily } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, eq, sql } from 'drizzle-orm';
import { publishableKeys } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { rowsOf } from '../metering/sql-values.js';
import { nanosToDollars } from '../money.js';
import type { Viewer } from '../people/ensure-person.js';
import type { KeyFilter } from './key-filter.js';

export type UsageDailyQuery = KeyFilter & { days: number };

type Sums = { calls: bigint; inputTokens: bigint; outputTokens: bigint; costNanos: bigint };

const dayMs = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The last `count` UTC calendar days, oldest first, today last. */
function windowDays(now: Date, count: number): string[] {
  const today = Math.floor(now.getTime() / dayMs) * dayMs;
  return Array.from({ length: count }, (_, i) => utcDay(today - (count - 1 - i) * dayMs));
}

/**
 * The key the query names, of the kind it names it as, of the viewer's organisation (deleted ones
 * too: their history stays theirs); any other id answers like the keys routes answer a key that
 * never existed.
 */
async function namedKey(db: Database, viewer: Pick<Viewer, 'organizationId'>, { publishableKeyId, secretKeyId }: KeyFilter) {
  const [kind, keyId] = secretKeyId ? (['secret', secretKeyId] as const) : (['publishable', publishableKeyId] as const);
  if (!keyId) return undefined;
  const [key] = await db
    .select({ id: publishableKeys.id, name: publishableKeys.name, spendLimitNanos: publishableKeys.spendLimitNanos })
    .from(publishableKeys)
    .where(and(eq(publishableKeys.id, keyId), eq(publishableKeys.organizationId, viewer.organizationId), eq(publishableKeys.kind, kind)))
    .limit(1);
  if (!key) throw new AppError('NotFound', `Unknown ${kind} key.`);
  return { kind, ...key };
}

type Row = { day: string; model: string | null; keyId: string | null; keyName: string | null; keyDeleted: boolean | null } & Record<keyof Sums, string>;

/**
 * The window's sums in one pass over usage_daily, a range of its primary key (organisation, day):
 * grouping sets give each day's rows by model and, apart, by key, so the answer grows with models
 * plus keys rather than their product; key rows carry the key's name, deleted or not. The range
 * starts at the first window day's month, for the month-to-date line. Plain SQL: drizzle's mapping
 * of this subquery and join doubled the function's time in bench/usage.
 */
async function readSums(db: Database, organizationId: string, from: string, to: string, keyId: string | undefined): Promise<Row[]> {
  return rowsOf<Row>(
    await db.execute(sql`
      select sums.*, k.name as "keyName", k.deleted_at is not null as "keyDeleted" from (
        select day::text as day, model, publishable_key_id as "keyId", sum(calls)::text as calls, sum(input_tokens)::text as "inputTokens",
          sum(output_tokens)::text as "outputTokens", sum(cost_nanos)::text as "costNanos"
        from app.usage_daily
        where organization_id = ${organizationId} and day between ${from} and ${to} ${keyId ? sql`and publishable_key_id = ${keyId}` : sql``}
        -- model is null in the key rows, the key in the model rows (both are NOT NULL in the table).
        group by grouping sets ((day, model), (day, publishable_key_id))
      ) as sums left join app.publishable_keys k on k.organization_id = ${organizationId} and k.id = sums."keyId"`),
  );
}

const zeros = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, 0]));

/**
 * Spend per UTC day, by model and by key, over the last `days` days (today included), from
 * usage_daily alone: it reads a few hundred rows however many calls there were.
 */
export async function getUsageDaily(db: Database, viewer: Pick<Viewer, 'organizationId'>, query: UsageDailyQuery, now: Date): Promise<UsageDaily> {
  const key = await namedKey(db, viewer, query);
  const named = key && { id: key.id, name: key.name, monthlyBudget: nanosToDollars(key.spendLimitNanos) };
  const days = windowDays(now, query.days);
  const first = days[0]!;
  const rows = await readSums(db, viewer.organizationId, `${first.slice(0, 8)}01`, days.at(-1)!, key?.id);

  // Each call is counted twice, once in its model's row and once in its key's: the day's sums come from the model rows.
  const modelRows = rows.filter((row) => row.model !== null);
  const keyRows = rows.filter((row) => row.keyId !== null && row.day >= first);
  const models = [...new Set(modelRows.filter((row) => row.day >= first).map((row) => row.model!))].sort();
  const keys = [...new Map(keyRows.map((row) => [row.keyId!, { id: row.keyId!, name: row.keyName ?? '', deleted: row.keyDeleted === true }])).values()].sort(
    (x, y) => x.name.localeCompare(y.name) || x.id.localeCompare(y.id),
  );
  const totals: Sums = { calls: 0n, inputTokens: 0n, outputTokens: 0n, costNanos: 0n };
  // Spend of the first window day's month before the window: where its month-to-date line starts.
  let monthToDate = modelRows.filter((row) => row.day < first).reduce((sum, row) => sum + BigInt(row.costNanos), 0n);
  const byDay = new Map<string, Row[]>();
  for (const row of rows) if (row.day >= first) byDay.set(row.day, [...(byDay.get(row.day) ?? []), row]);

  return {
    days: days.map((day) => {
      const sums: Sums = { calls: 0n, inputTokens: 0n, outputTokens: 0n, costNanos: 0n };
      const costByModel = zeros(models);
      const costByKey = zeros(keys.map(({ id }) => id));
      for (const row of byDay.get(day) ?? []) {
        if (row.keyId !== null) {
          costByKey[row.keyId] = nanosToDollars(BigInt(row.costNanos));
          continue;
        }
        sums.calls += BigInt(row.calls);
        sums.inputTokens += BigInt(row.inputTokens);
        sums.outputTokens += BigInt(row.outputTokens);
        sums.costNanos += BigInt(row.costNanos);
        costByModel[row.model!] = nanosToDollars(BigInt(row.costNanos));
      }
      for (const name of Object.keys(totals) as (keyof Sums)[]) totals[name] += sums[name];
      monthToDate = (day.endsWith('-01') ? 0n : monthToDate) + sums.costNanos;
      return {
        day,
        costByModel,
        costByKey,
        cost: nanosToDollars(sums.costNanos),
        calls: Number(sums.calls),
        inputTokens: Number(sums.inputTokens),
        outputTokens: Number(sums.outputTokens),
        monthToDateCost: nanosToDollars(monthToDate),
      };
    }),
    models,
    keys,
    totals: {
      cost: nanosToDollars(totals.costNanos),
      calls: Number(totals.calls),
      inputTokens: Number(totals.inputTokens),
      outputTokens: Number(totals.outputTokens),
    },
    ...(named && key?.kind === 'publishable' ? { publishableKey: named } : {}),
    ...(named && key?.kind === 'secret' ? { secretKey: named } : {}),
  };
}

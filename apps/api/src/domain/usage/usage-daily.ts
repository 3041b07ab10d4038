import type { UsageDaily } from '@meterway/contracts';
import type { Database } from '@meterway/db';
import { and, asc, between, eq, sql } from 'drizzle-orm';
import { publishableKeys, usageDaily } from '../../db/schema/index.js';
import { AppError } from '../../errors/app-error.js';
import { nanosToDollars } from '../money.js';
import type { Viewer } from '../people/ensure-person.js';

export type UsageDailyQuery = { publishableKeyId?: string | undefined; days: number };

type Sums = { calls: bigint; inputTokens: bigint; outputTokens: bigint; costNanos: bigint };

const dayMs = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The last `count` UTC calendar days, oldest first, today last. */
function windowDays(now: Date, count: number): string[] {
  const today = Math.floor(now.getTime() / dayMs) * dayMs;
  return Array.from({ length: count }, (_, i) => utcDay(today - (count - 1 - i) * dayMs));
}

/**
 * A key of the viewer's organisation (deleted ones too: their history stays theirs); any other id
 * answers like the keys routes answer a key that never existed.
 */
async function ownedKey(db: Database, viewer: Viewer, keyId: string) {
  const [key] = await db
    .select({ id: publishableKeys.id, name: publishableKeys.name, spendLimitNanos: publishableKeys.spendLimitNanos })
    .from(publishableKeys)
    .where(and(eq(publishableKeys.id, keyId), eq(publishableKeys.organizationId, viewer.organizationId)))
    .limit(1);
  if (!key) throw new AppError('NotFound', 'Unknown publishable key.');
  return key;
}

/**
 * Spend per UTC day and model over the last `days` days (today included), from usage_daily alone:
 * a range of its primary key (organisation, day), so it reads a few hundred rows however many
 * calls there were. The range starts at the first window day's month, for the month-to-date line.
 */
export async function getUsageDaily(db: Database, viewer: Viewer, query: UsageDailyQuery, now: Date): Promise<UsageDaily> {
  const key = query.publishableKeyId ? await ownedKey(db, viewer, query.publishableKeyId) : undefined;
  const days = windowDays(now, query.days);
  const first = days[0]!;
  const last = days.at(-1)!;
  const rows = await db
    .select({
      day: usageDaily.day,
      model: usageDaily.model,
      calls: sql<string>`sum(${usageDaily.calls})::text`,
      inputTokens: sql<string>`sum(${usageDaily.inputTokens})::text`,
      outputTokens: sql<string>`sum(${usageDaily.outputTokens})::text`,
      costNanos: sql<string>`sum(${usageDaily.costNanos})::text`,
    })
    .from(usageDaily)
    .where(
      and(
        eq(usageDaily.organizationId, viewer.organizationId),
        between(usageDaily.day, `${first.slice(0, 8)}01`, last),
        key ? eq(usageDaily.publishableKeyId, key.id) : undefined,
      ),
    )
    .groupBy(usageDaily.day, usageDaily.model)
    .orderBy(asc(usageDaily.day), asc(usageDaily.model));

  const inWindow = rows.filter((row) => row.day >= first);
  const models = [...new Set(inWindow.map((row) => row.model))].sort();
  const totals: Sums = { calls: 0n, inputTokens: 0n, outputTokens: 0n, costNanos: 0n };
  // Spend of the first window day's month before the window: where its month-to-date line starts.
  let monthToDate = rows.filter((row) => row.day < first).reduce((sum, row) => sum + BigInt(row.costNanos), 0n);
  const byDay = new Map<string, typeof rows>();
  for (const row of inWindow) byDay.set(row.day, [...(byDay.get(row.day) ?? []), row]);

  return {
    days: days.map((day) => {
      const sums: Sums = { calls: 0n, inputTokens: 0n, outputTokens: 0n, costNanos: 0n };
      const costByModel = Object.fromEntries(models.map((model) => [model, 0]));
      for (const row of byDay.get(day) ?? []) {
        sums.calls += BigInt(row.calls);
        sums.inputTokens += BigInt(row.inputTokens);
        sums.outputTokens += BigInt(row.outputTokens);
        sums.costNanos += BigInt(row.costNanos);
        costByModel[row.model] = nanosToDollars(BigInt(row.costNanos));
      }
      for (const name of Object.keys(totals) as (keyof Sums)[]) totals[name] += sums[name];
      monthToDate = (day.endsWith('-01') ? 0n : monthToDate) + sums.costNanos;
      return {
        day,
        costByModel,
        cost: nanosToDollars(sums.costNanos),
        calls: Number(sums.calls),
        inputTokens: Number(sums.inputTokens),
        outputTokens: Number(sums.outputTokens),
        monthToDateCost: nanosToDollars(monthToDate),
      };
    }),
    models,
    totals: {
      cost: nanosToDollars(totals.costNanos),
      calls: Number(totals.calls),
      inputTokens: Number(totals.inputTokens),
      outputTokens: Number(totals.outputTokens),
    },
    ...(key ? { publishableKey: { id: key.id, name: key.name, monthlyBudget: nanosToDollars(key.spendLimitNanos) } } : {}),
  };
}

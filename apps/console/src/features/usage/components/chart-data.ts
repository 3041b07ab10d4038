import type { UsageDaily } from '@meterway/contracts';

// The chart's rows: one per UTC day. Series get positional keys (m0, m1…) because recharts reads
// a dotted key such as "gpt-4.1" as a path into the row.

export const monthToDateKey = 'monthToDate';

const dayLabel = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** "2026-11-03" → "Nov 3", the UTC calendar day whatever the browser's zone. */
export const formatDay = (day: string): string => dayLabel.format(new Date(`${day}T00:00:00Z`));

export const modelKey = (index: number) => `m${index}`;

export function chartRows(usage: UsageDaily): Record<string, string | number>[] {
  return usage.days.map((day) => ({
    day: formatDay(day.day),
    ...Object.fromEntries(usage.models.map((model, index) => [modelKey(index), day.costByModel[model] ?? 0])),
    [monthToDateKey]: day.monthToDateCost,
  }));
}

import type { UsageDaily } from '@meterway/contracts';

// The chart's rows: one per UTC day. Series get positional keys (s0, s1…) because recharts reads
// a dotted key such as "gpt-4.1" as a path into the row.

export const monthToDateKey = 'monthToDate';

/** What the bars are stacked by. */
export type ChartSplit = 'model' | 'key';

const dayLabel = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** "2026-11-03" → "Nov 3", the UTC calendar day whatever the browser's zone. */
export const formatDay = (day: string): string => dayLabel.format(new Date(`${day}T00:00:00Z`));

export const seriesKey = (index: number) => `s${index}`;

/** The stacked series, in order: the window's models, or its keys (a deleted key says so). */
export function splitSeries(usage: UsageDaily, split: ChartSplit): { id: string; label: string }[] {
  return split === 'model'
    ? usage.models.map((model) => ({ id: model, label: model }))
    : usage.keys.map((key) => ({ id: key.id, label: key.deleted ? `${key.name} (deleted)` : key.name }));
}

export function chartRows(usage: UsageDaily, split: ChartSplit = 'model'): Record<string, string | number>[] {
  const series = splitSeries(usage, split);
  return usage.days.map((day) => {
    const costs = split === 'model' ? day.costByModel : day.costByKey;
    return {
      day: formatDay(day.day),
      ...Object.fromEntries(series.map(({ id }, index) => [seriesKey(index), costs[id] ?? 0])),
      [monthToDateKey]: day.monthToDateCost,
    };
  });
}

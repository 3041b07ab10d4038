import { CompositeChart, type CompositeChartSeries } from '@mantine/charts';
import { SegmentedControl, Stack } from '@mantine/core';
import type { UsageDaily } from '@meterway/contracts';
import { useState } from 'react';
import { formatMoney } from '../../../lib/format';
import { formatCost } from '../usage-format';
import { type ChartSplit, chartRows, monthToDateKey, seriesKey, splitSeries } from './chart-data';

const palette = ['blue.6', 'teal.6', 'grape.6', 'orange.6', 'cyan.6', 'pink.6', 'lime.6', 'indigo.6'];

/**
 * Daily spend stacked by model, or by key. With one key chosen, the split by key would be one bar,
 * so the toggle goes and the bars stay by model; the key's month-to-date spend (starting over on
 * each UTC month's first day) runs as a line against a dashed line at its monthly budget.
 */
export function UsageChart({ usage }: { usage: UsageDaily }) {
  const [chosen, setChosen] = useState<ChartSplit>('model');
  const budget = (usage.publishableKey ?? usage.secretKey)?.monthlyBudget;
  const split = budget === undefined ? chosen : 'model';
  const series: CompositeChartSeries[] = splitSeries(usage, split).map(({ label }, index) => ({
    name: seriesKey(index),
    label,
    type: 'bar',
    color: palette[index % palette.length],
  }));
  if (budget !== undefined) series.push({ name: monthToDateKey, label: 'Month-to-date spend', type: 'line', color: 'dark.4' });

  return (
    <Stack gap="xs">
      {budget === undefined && (
        <SegmentedControl
          aria-label="Split daily spend"
          size="xs"
          style={{ alignSelf: 'flex-end' }}
          value={split}
          onChange={(value) => setChosen(value as ChartSplit)}
          data={[
            { value: 'model', label: 'By model' },
            { value: 'key', label: 'By key' },
          ]}
        />
      )}
      <CompositeChart
        h={280}
        data={chartRows(usage, split)}
        dataKey="day"
        series={series}
        barProps={{ stackId: 'spend' }}
        withDots={false}
        withLegend
        legendProps={{ verticalAlign: 'bottom' }}
        valueFormatter={formatCost}
        yAxisProps={{ tickFormatter: formatCost, width: 72, ...(budget !== undefined ? { domain: [0, (max: number) => Math.max(max, budget)] } : {}) }}
        // Recharts drops labels that would come closer than the gap, so days never crowd on a phone.
        xAxisProps={{ minTickGap: 24, interval: 'preserveStartEnd' }}
        xAxisLabel="Day (UTC)"
        referenceLines={
          budget === undefined
            ? []
            : [{ y: budget, color: 'red.6', strokeDasharray: '6 4', label: `Monthly budget ${formatMoney(budget)}`, labelPosition: 'insideTopRight' }]
        }
      />
    </Stack>
  );
}

import { CompositeChart, type CompositeChartSeries } from '@mantine/charts';
import type { UsageDaily } from '@meterway/contracts';
import { formatMoney } from '../../../lib/format';
import { formatCost } from '../usage-format';
import { chartRows, modelKey, monthToDateKey } from './chart-data';

const palette = ['blue.6', 'teal.6', 'grape.6', 'orange.6', 'cyan.6', 'pink.6', 'lime.6', 'indigo.6'];

/**
 * Daily spend stacked by model. With one key chosen, its month-to-date spend (starting over on
 * each UTC month's first day) runs as a line against a dashed line at the key's monthly budget.
 */
export function UsageChart({ usage }: { usage: UsageDaily }) {
  const budget = usage.publishableKey?.monthlyBudget;
  const series: CompositeChartSeries[] = usage.models.map((model, index) => ({
    name: modelKey(index),
    label: model,
    type: 'bar',
    color: palette[index % palette.length],
  }));
  if (budget !== undefined) series.push({ name: monthToDateKey, label: 'Month-to-date spend', type: 'line', color: 'dark.4' });

  return (
    <CompositeChart
      h={280}
      data={chartRows(usage)}
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
  );
}

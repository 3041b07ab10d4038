import { describe, expect, it, vi } from 'vitest';
import { buildUsageDaily } from '../../../testing/usage-handlers';
import { chartRows } from './chart-data';

describe('chartRows', () => {
  it('labels each UTC day and carries every model, dotted names included, and the month to date', () => {
    const usage = buildUsageDaily({
      days: [
        { day: '2026-02-28', costByModel: { 'gpt-4.1': 1.25, 'gpt-4o-mini': 0 }, cost: 1.25, calls: 3, inputTokens: 30, outputTokens: 9, monthToDateCost: 40 },
        {
          day: '2026-03-01',
          costByModel: { 'gpt-4.1': 0.5, 'gpt-4o-mini': 0.000001 },
          cost: 0.500001,
          calls: 2,
          inputTokens: 20,
          outputTokens: 6,
          monthToDateCost: 0.500001,
        },
      ],
      models: ['gpt-4.1', 'gpt-4o-mini'],
    });
    expect(chartRows(usage)).toEqual([
      { day: 'Feb 28', m0: 1.25, m1: 0, monthToDate: 40 },
      { day: 'Mar 1', m0: 0.5, m1: 0.000001, monthToDate: 0.500001 },
    ]);
  });

  it('names the UTC calendar day in a browser west of UTC', async () => {
    const zone = process.env.TZ;
    process.env.TZ = 'America/Los_Angeles';
    try {
      vi.resetModules();
      const { formatDay } = await import('./chart-data');
      expect(formatDay('2027-01-01')).toBe('Jan 1');
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

import { describe, expect, it, vi } from 'vitest';
import { buildUsageDaily } from '../../../testing/usage-handlers';
import { chartRows, splitSeries } from './chart-data';

const web = '6f1d2c3b-4a59-4e68-8d7c-1b2a3c4d5e6f';
const old = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

const usage = buildUsageDaily({
  days: [
    {
      day: '2026-02-28',
      costByModel: { 'gpt-4.1': 1.25, 'gpt-4o-mini': 0 },
      costByKey: { [web]: 1, [old]: 0.25 },
      cost: 1.25,
      calls: 3,
      inputTokens: 30,
      outputTokens: 9,
      monthToDateCost: 40,
    },
    {
      day: '2026-03-01',
      costByModel: { 'gpt-4.1': 0.5, 'gpt-4o-mini': 0.000001 },
      costByKey: { [web]: 0.500001, [old]: 0 },
      cost: 0.500001,
      calls: 2,
      inputTokens: 20,
      outputTokens: 6,
      monthToDateCost: 0.500001,
    },
  ],
  models: ['gpt-4.1', 'gpt-4o-mini'],
  keys: [
    { id: web, name: 'Web app', deleted: false },
    { id: old, name: 'Old app', deleted: true },
  ],
});

describe('chartRows', () => {
  it('labels each UTC day and carries every model, dotted names included, and the month to date', () => {
    expect(chartRows(usage)).toEqual([
      { day: 'Feb 28', s0: 1.25, s1: 0, monthToDate: 40 },
      { day: 'Mar 1', s0: 0.5, s1: 0.000001, monthToDate: 0.500001 },
    ]);
  });

  it('split by key, carries every key in the order of the legend', () => {
    expect(chartRows(usage, 'key')).toEqual([
      { day: 'Feb 28', s0: 1, s1: 0.25, monthToDate: 40 },
      { day: 'Mar 1', s0: 0.500001, s1: 0, monthToDate: 0.500001 },
    ]);
    expect(splitSeries(usage, 'key').map((series) => series.label)).toEqual(['Web app', 'Old app (deleted)']);
    expect(splitSeries(usage, 'model').map((series) => series.label)).toEqual(['gpt-4.1', 'gpt-4o-mini']);
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

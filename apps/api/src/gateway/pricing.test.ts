import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packagePath } from '@meterway/service';
import { describe, expect, it } from 'vitest';
import { loadPricing } from './pricing.js';

const write = (content: unknown) => {
  const file = join(mkdtempSync(join(tmpdir(), 'meterway-pricing-')), 'pricing.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};
const valid = { version: 'v1', currency: 'USD', unit: 'per 1M tokens', models: { 'gpt-4o-mini': { input: 0.15, output: 0.6 } } };

describe('the pricing file', () => {
  it('turns USD per 1M tokens into whole nano-dollars per token, with the margin', () => {
    const pricing = loadPricing(write({ ...valid, margin: 0.1 }));
    expect(pricing.models.get('gpt-4o-mini')).toMatchObject({ inputNanosPerToken: 165n, outputNanosPerToken: 660n });
  });

  it('ships a valid file with the demo model', () => {
    const pricing = loadPricing(packagePath(import.meta.url, 'pricing.json'));
    expect(pricing.models.has('meterway-demo')).toBe(true);
  });

  it('refuses an unreadable or invalid file with the reason', () => {
    expect(() => loadPricing(write('{ not json'))).toThrow(/cannot be read/);
    expect(() => loadPricing(write({ ...valid, models: {} }))).toThrow(/models: at least one model/);
    expect(() => loadPricing(write({ ...valid, models: { x: { input: -1, output: 1 } } }))).toThrow(/models\.x\.input/);
    expect(() => loadPricing(write({ ...valid, models: { x: { input: 0.0001, output: 1 } } }))).toThrow(/at most 3 decimals/);
    expect(() => loadPricing(write({ ...valid, currency: 'EUR' }))).toThrow(/currency/);
  });
});

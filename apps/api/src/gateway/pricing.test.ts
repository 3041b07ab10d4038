import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packagePath } from '@meterway/service';
import { describe, expect, it } from 'vitest';
import { loadPricing, pricedModelsOf } from './pricing.js';

const write = (content: unknown) => {
  const file = join(mkdtempSync(join(tmpdir(), 'meterway-pricing-')), 'pricing.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};
const valid = { version: 'v1', currency: 'USD', unit: 'per 1M tokens', models: { 'gpt-4o-mini': { input: 0.15, output: 0.6, maxOutputTokens: 16384 } } };

describe('the pricing file', () => {
  it('turns USD per 1M tokens into whole nano-dollars per token, with the margin', () => {
    const pricing = loadPricing(write({ ...valid, margin: 0.1 }));
    expect(pricing.models.get('gpt-4o-mini')).toMatchObject({ inputNanosPerToken: 165n, outputNanosPerToken: 660n });
  });

  it('prices cached input at its own price, the input price when it has none', () => {
    const cached = loadPricing(write({ ...valid, models: { m: { input: 2.5, cachedInput: 1.25, output: 10, maxOutputTokens: 10 } } }));
    expect(cached.models.get('m')).toMatchObject({ inputNanosPerToken: 2500n, cachedInputNanosPerToken: 1250n, maxOutputTokens: 10 });
    expect(loadPricing(write(valid)).models.get('gpt-4o-mini')).toMatchObject({ cachedInputNanosPerToken: 150n });
  });

  it('shows customers the prices as charged, with the margin, and no cached-input price where the list has none', () => {
    const models = {
      m: { input: 2.5, cachedInput: 1.25, output: 10, maxOutputTokens: 10, images: { low: 85, high: 1445 } },
      n: { input: 0.15, output: 0.6, maxOutputTokens: 9 },
    };
    expect(pricedModelsOf(loadPricing(write({ ...valid, margin: 0.1, models })))).toEqual([
      { id: 'm', inputPerMillion: 2.75, cachedInputPerMillion: 1.375, outputPerMillion: 11, maxOutputTokens: 10, acceptsImages: true },
      { id: 'n', inputPerMillion: 0.165, cachedInputPerMillion: null, outputPerMillion: 0.66, maxOutputTokens: 9, acceptsImages: false },
    ]);
  });

  it('ships a valid file with the demo model', () => {
    const pricing = loadPricing(packagePath(import.meta.url, 'pricing.json'));
    expect(pricing.models.has('meterway-demo')).toBe(true);
  });

  it('refuses an unreadable or invalid file with the reason', () => {
    expect(() => loadPricing(write('{ not json'))).toThrow(/cannot be read/);
    expect(() => loadPricing(write({ ...valid, models: {} }))).toThrow(/models: at least one model/);
    expect(() => loadPricing(write({ ...valid, models: { x: { input: -1, output: 1, maxOutputTokens: 9 } } }))).toThrow(/models\.x\.input/);
    expect(() => loadPricing(write({ ...valid, models: { x: { input: 0.0001, output: 1, maxOutputTokens: 9 } } }))).toThrow(/at most 3 decimals/);
    expect(() => loadPricing(write({ ...valid, currency: 'EUR' }))).toThrow(/currency/);
    expect(() => loadPricing(write({ ...valid, models: { x: { input: 1, output: 1 } } }))).toThrow(/models\.x\.maxOutputTokens/);
    expect(() => loadPricing(write({ ...valid, models: { x: { input: 1, cachedInput: 2, output: 1, maxOutputTokens: 9 } } }))).toThrow(
      /cachedInput above input/,
    );
  });
});

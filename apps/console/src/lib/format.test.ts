import { describe, expect, it } from 'vitest';
import { formatOwed } from './format';

describe('formatOwed', () => {
  it('rounds a debt up to the cent, so a fraction of a cent never reads as nothing', () => {
    expect([0.000093, 0.01, 1.1, 7.5, 8.251, 1234.5].map(formatOwed)).toEqual(['$0.01', '$0.01', '$1.10', '$7.50', '$8.26', '$1,234.50']);
  });
});

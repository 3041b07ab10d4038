import { describe, expect, it } from 'vitest';
import { formatExactMoney, formatOwed, formatSpend } from './format';

describe('formatOwed', () => {
  it('rounds a debt up to the cent, so a fraction of a cent never reads as nothing', () => {
    expect([0.000093, 0.01, 1.1, 7.5, 8.251, 1234.5].map(formatOwed)).toEqual(['$0.01', '$0.01', '$1.10', '$7.50', '$8.26', '$1,234.50']);
  });
});

describe('formatSpend', () => {
  it('shows fractions of a cent under $10, so a call of $0.0003 changes it, and cents from $10 on', () => {
    expect([0, 0.0003, 0.42, 9.99693, 9.9969, 10, 10.123456, 1234.5].map(formatSpend)).toEqual([
      '$0.00',
      '$0.0003',
      '$0.42',
      '$9.9969',
      '$9.9969',
      '$10.00',
      '$10.12',
      '$1,234.50',
    ]);
  });

  it('gives the exact figure, to the nano-dollar, for the hover', () => {
    expect([9.996931234, 25, 0.000000001].map(formatExactMoney)).toEqual(['$9.996931234', '$25.00', '$0.000000001']);
  });
});

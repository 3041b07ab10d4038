import { describe, expect, it } from 'vitest';
import { csvField, csvRecord } from './csv.js';
import { nanosToDecimalDollars } from '../money.js';

describe('csv', () => {
  it('leaves plain text as it is and quotes only what RFC 4180 needs', () => {
    expect(csvField('demo-small')).toBe('demo-small');
    expect(csvField('')).toBe('');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('one\ntwo')).toBe('"one\ntwo"');
    expect(csvRecord(['a', 'b,c'])).toBe('a,"b,c"\r\n');
  });

  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('makes %j text, not a formula', (value) => {
    expect(csvField(value).replace(/^"/, '').startsWith(`'${value[0]}`)).toBe(true);
  });

  it('keeps a formula character that is not the first one', () => {
    expect(csvField('a=b-c')).toBe('a=b-c');
  });
});

describe('nanosToDecimalDollars', () => {
  it.each([
    [0n, '0'],
    [5n, '0.000000005'],
    [617_000n, '0.000617'],
    [1_000_000_000n, '1'],
    [2_500_000_000n, '2.5'],
    [1_234_567_890_123n, '1234.567890123'],
    // Beyond what a float holds exactly.
    [9_007_199_254_740_993_001n, '9007199254.740993001'],
  ])('%s nano-dollars are %s dollars', (nanos, dollars) => {
    expect(nanosToDecimalDollars(nanos)).toBe(dollars);
  });
});

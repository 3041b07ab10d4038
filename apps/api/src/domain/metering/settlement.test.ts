import { describe, expect, it } from 'vitest';
import { listedCost, listedPrice } from '../../testing/price-list.js';

// Literal amounts, to check by hand against apps/api/pricing.json (margin 0): USD per 1M tokens is
// nano-dollars per thousand tokens, so $0.15 is 150 n$ a token. The other tests take theirs from listedCost.
describe('what a call costs, priced from the shipped price list', () => {
  it('charges input and output at their listed prices', () => {
    // gpt-4o-mini: $0.15 input, $0.60 output.
    expect(listedCost('gpt-4o-mini', { inputTokens: 11, outputTokens: 8 })).toEqual({ inputNanos: 1_650n, outputNanos: 4_800n, totalNanos: 6_450n });
  });

  it('charges cached input at the cached price, the rest of the input at the input price', () => {
    // gpt-4o: $2.50 input, $1.25 cached input, $10 output; 60 uncached and 40 cached input tokens.
    expect(listedCost('gpt-4o', { inputTokens: 100, cachedInputTokens: 40, outputTokens: 3 })).toEqual({
      inputNanos: 200_000n,
      outputNanos: 30_000n,
      totalNanos: 230_000n,
    });
  });

  it('never counts more cached tokens than input tokens', () => {
    expect(listedCost('gpt-4o', { inputTokens: 10, cachedInputTokens: 50, outputTokens: 0 }).inputNanos).toBe(12_500n);
  });

  it('reads per-token prices from the list', () => {
    // gpt-4.1: $8 output.
    expect(listedPrice('gpt-4.1').outputNanosPerToken).toBe(8_000n);
    expect(() => listedPrice('gpt-unlisted')).toThrow('gpt-unlisted is not in the price list');
  });
});

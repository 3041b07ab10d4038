// The per-key controls of issue #18 the benches put on their key: every one on, each wide enough
// to refuse none of the calls (100,000 requests a minute is the most a key may allow an address).
const dollarMillion = 1_000_000n * 1_000_000_000n;

export const wideOpenControls = {
  allowedModels: ['gpt-4o-mini'],
  maxOutputTokensPerCall: 1024,
  clientRequestsPerMinute: 100_000,
  clientSpendPerDayNanos: dollarMillion,
  endUserRequestsPerMinute: 100_000,
  endUserSpendPerDayNanos: dollarMillion,
  endUserSpendPerMonthNanos: dollarMillion,
};

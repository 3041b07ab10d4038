/** Money is integer nano-dollars (1e-9 USD) everywhere but at the edge, where it is dollars. */
export const nanosPerDollar = 1_000_000_000n;
export const nanosPerCent = 10_000_000n;

/** Dollars (as the BFF speaks them) to nano-dollars, rounded to the nearest nano-dollar. */
export function dollarsToNanos(dollars: number): bigint {
  return BigInt(Math.round(dollars * 1e9));
}

export function nanosToDollars(nanos: bigint): number {
  return Number(nanos) / 1e9;
}

/** Exact dollars from nano-dollars, without the trailing zeros: 617000n → "0.000617". */
export function nanosToDecimalDollars(nanos: bigint): string {
  const magnitude = nanos < 0n ? -nanos : nanos;
  const fraction = (magnitude % nanosPerDollar).toString().padStart(9, '0').replace(/0+$/, '');
  return `${nanos < 0n ? '-' : ''}${magnitude / nanosPerDollar}${fraction ? `.${fraction}` : ''}`;
}

const twoDigits = (value: number) => String(value).padStart(2, '0');

/** The first day of the current UTC calendar month, the key budgets' period. */
export function periodStart(now: Date): string {
  return `${now.getUTCFullYear()}-${twoDigits(now.getUTCMonth() + 1)}-01`;
}

/** The current UTC day, the period of a client's daily allowance (built from its parts: toISOString costs eight times as much, twice per call). */
export function dayStart(now: Date): string {
  return `${now.getUTCFullYear()}-${twoDigits(now.getUTCMonth() + 1)}-${twoDigits(now.getUTCDate())}`;
}

/** A model's price per token, in nano-dollars. */
export type Prices = { inputNanosPerToken: bigint; outputNanosPerToken: bigint };

// Amounts are shown in US dollars the same way whatever the browser's language, as the spec
// writes them ("$10 / month", "$0.42 spent this month").
// signDisplay 'negative': a rounding of -0.001 reads "$0.00", not "-$0.00".
const withCents = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', signDisplay: 'negative' });
const wholeDollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', signDisplay: 'negative', maximumFractionDigits: 0 });

/**
 * Dollars as money: `formatMoney(25)` → "$25.00", `formatMoney(0.4249)` → "$0.42". With
 * `omitZeroCents`, an amount of whole dollars drops its cents: "$10" (but "$12.50" stays).
 */
export function formatMoney(dollars: number, { omitZeroCents = false }: { omitZeroCents?: boolean } = {}): string {
  const whole = Math.round(dollars * 100) % 100 === 0;
  return (omitZeroCents && whole ? wholeDollars : withCents).format(dollars);
}

const toTenthOfACent = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  signDisplay: 'negative',
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
});
const exactly = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  signDisplay: 'negative',
  minimumFractionDigits: 2,
  maximumFractionDigits: 9,
});

/**
 * Money that moves by fractions of a cent (the balance, a key's spend): under $10 to four decimals
 * where it has them, so one call of $0.0003 visibly changes it: 9.99693 → "$9.9969", 0.42 →
 * "$0.42"; from $10 on, cents. `formatExactMoney` gives every nano-dollar, for the figure on hover.
 */
export const formatSpend = (dollars: number): string => (Math.abs(dollars) < 10 ? toTenthOfACent : withCents).format(dollars);

export const formatExactMoney = (dollars: number): string => exactly.format(dollars);

const price = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 });

/** A price per 1M tokens: cents at least, and the fractions of a cent a price list has: 0.15 → "$0.15", 0.075 → "$0.075", 10 → "$10.00". */
export const formatPrice = (dollars: number): string => price.format(dollars);

/** A debt as money, rounded up to the cent so that one of a fraction of a cent never reads "$0.00": 0.000093 → "$0.01". */
export function formatOwed(dollars: number): string {
  // Through whole nano-dollars first, so 1.1 (110.00000000000001 cents in floating point) stays "$1.10".
  return withCents.format(Math.ceil(Math.round(dollars * 1e9) / 1e7) / 100);
}

// Spec §9: date and 24-hour time in the browser's language.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium', hourCycle: 'h23' });

export const formatDateTime = (iso: string): string => dateTime.format(new Date(iso));

// Formats of the usage table.

const count = new Intl.NumberFormat();

export const formatTokens = (tokens: number): string => count.format(tokens);

// A call costs fractions of a cent ($0.000123), which two decimals would show as $0.00. The api
// counts in nano-dollars, so up to nine decimals shows a cost exactly and the columns add up.
const cost = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 9 });

export const formatCost = (dollars: number): string => cost.format(dollars);

/**
 * Leaving the console for another site (identity's hosted pages, the payment portal). An object
 * rather than a bare call, so tests can replace `assign`: jsdom cannot navigate.
 */
export const browserLocation = {
  assign: (url: string): void => window.location.assign(url),
};

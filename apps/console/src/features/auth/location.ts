/**
 * Leaving the console for another site (identity's second-factor and settings pages). An object,
 * so tests can replace `assign`: jsdom cannot navigate.
 */
export const browserLocation = {
  assign: (url: string): void => window.location.assign(url),
};

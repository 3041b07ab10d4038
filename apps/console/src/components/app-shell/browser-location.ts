/**
 * Full-page navigations to other origins (identity's hosted pages). An object rather than a bare
 * call, so tests can spy on it: jsdom's window.location cannot be stubbed.
 */
export const browserLocation = {
  assign: (url: string): void => window.location.assign(url),
};

/**
 * Where the console writes the details behind a toast or a mapped failure. `warn`, never
 * `console.error`: an error-level log is reserved for bugs (and fails the tests), while these are
 * expected failures (a 4xx, an identity flow that said no). Tests spy on this object.
 */
export const logger = {
  warn: (message: string, detail?: unknown): void => {
    if (detail === undefined) console.warn(message);
    else console.warn(message, detail);
  },
};

import { afterEach, beforeEach, vi } from 'vitest';

/** A console.error is a bug (a React warning, an unhandled failure): it fails the test that made it. */
export function failOnConsoleError() {
  let consoleErrors: string[] = [];
  beforeEach(() => {
    consoleErrors = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      consoleErrors.push(
        args.map((arg) => (arg instanceof Error ? (arg.stack ?? arg.message) : typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '),
      );
    });
  });
  afterEach(() => {
    if (consoleErrors.length > 0) throw new Error(`console.error was called:\n${consoleErrors.join('\n')}`);
  });
}

import type { TestProject } from 'vitest/node';
import { chromiumPath } from './support/browser.js';
import { startStack, type StackUrls } from './support/stack.js';
import { existsSync } from 'node:fs';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackUrls;
  }
}

/** Boots one stack for all specs, as `npm start` does, and stops it at the end. */
export async function setup(project: TestProject) {
  // Fail before the slow boot, with the install hint, rather than after it.
  if (!existsSync(chromiumPath)) {
    throw new Error(`Chromium was not found at ${chromiumPath}: install it with \`apt-get update && apt-get install -y chromium\`.`);
  }
  // Every spec signs people up from 127.0.0.1, more than identity's 20 sign-ups per address and
  // 10 minutes allow a real visitor; the limits themselves are tested by identity's own tests.
  const stack = await startStack({ env: { IDENTITY_RATE_LIMIT_MULTIPLIER: '10' } });
  project.provide('stack', { consoleUrl: stack.consoleUrl, apiUrl: stack.apiUrl, identityUrl: stack.identityUrl, dataDir: stack.dataDir });
  return async () => {
    const code = await stack.stop();
    if (code !== 0) throw new Error(`The stack did not stop cleanly (exit ${code}):\n${stack.output().slice(-4000)}`);
  };
}

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineProject } from 'vitest/config';

const include = ['src/**/*.test.{ts,tsx}', 'server/**/*.test.ts'];

/**
 * The test files that replace a module (`vi.mock`): a worker that already imported the real module
 * for another file would keep it, so these run in a fresh module graph each (vitest.isolated.config.ts).
 */
export const mockingTests = ['src', 'server']
  .flatMap((dir) => readdirSync(join(import.meta.dirname, dir), { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file)))
  .filter((file) => /\.test\.tsx?$/.test(file) && /\bvi\.mock\(/.test(readFileSync(join(import.meta.dirname, file), 'utf8')));

export default defineProject({
  plugins: [react()],
  test: {
    name: 'console',
    environment: 'jsdom',
    environmentOptions: { jsdom: { url: 'http://localhost:3000' } },
    include,
    exclude: mockingTests,
    setupFiles: ['./src/testing/setup.ts'],
    // The files share a worker's module graph and its jsdom (setup.ts clears the page after each test).
    isolate: false,
    unstubGlobals: true,
    // Typing a card with user-event while the other projects run can pass vitest's default 5 s.
    testTimeout: 20_000,
  },
});

import { defineConfig } from 'vitest/config';

const reportDir = process.env.TEST_REPORT_DIR;

export default defineConfig({
  test: {
    name: 'e2e',
    root: import.meta.dirname,
    include: ['specs/**/*.e2e.test.ts'],
    globalSetup: ['./global-setup.ts'],
    // One stack, one browser: the specs share them and run one file at a time.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    reporters: reportDir ? ['default', ['json', { outputFile: `${reportDir}/e2e.json` }]] : ['default'],
  },
});

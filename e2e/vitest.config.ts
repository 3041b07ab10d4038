import { defineConfig } from 'vitest/config';
import { fileTimesReporter } from '../scripts/file-times-reporter.ts';

const reportDir = process.env.TEST_REPORT_DIR;

export default defineConfig({
  test: {
    name: 'e2e',
    root: import.meta.dirname,
    include: ['specs/**/*.e2e.test.ts'],
    globalSetup: ['./global-setup.ts'],
    // One stack for the run; two specs at a time, each with its own browser and people of its own.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    reporters: reportDir ? ['default', ['json', { outputFile: `${reportDir}/e2e.json` }], fileTimesReporter(`${reportDir}/e2e.files.json`)] : ['default'],
  },
});

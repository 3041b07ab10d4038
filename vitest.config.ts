import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { fileTimesReporter } from './scripts/file-times-reporter.ts';

const reportDir = process.env.TEST_REPORT_DIR;
const reportName = process.env.TEST_REPORT_NAME ?? 'unit';

export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts', 'apps/*/vitest.config.ts', 'apps/console/vitest.isolated.config.ts', 'apps/identity/ui/vitest.config.ts'],
    // Each worker imports the app once and runs many files (the projects turn isolation off). Two
    // workers on a 2-core machine: the tests wait on databases and child processes as much as on CPU.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: reportDir
      ? ['default', ['json', { outputFile: `${reportDir}/${reportName}.json` }], fileTimesReporter(`${reportDir}/${reportName}.files.json`)]
      : ['default'],
  },
});

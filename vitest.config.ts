import { defineConfig } from 'vitest/config';

const reportDir = process.env.TEST_REPORT_DIR;

export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts', 'apps/*/vitest.config.ts', 'apps/identity/ui/vitest.config.ts'],
    reporters: reportDir ? ['default', ['json', { outputFile: `${reportDir}/${process.env.TEST_REPORT_NAME ?? 'unit'}.json` }]] : ['default'],
  },
});

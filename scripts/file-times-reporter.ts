// A Vitest reporter that writes each test file's seconds (environment, imports, hooks and tests;
// Vitest's JSON report counts the tests alone) to a JSON file, for CI's list of the slowest files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { Reporter } from 'vitest/node';

export function fileTimesReporter(outputFile: string): Reporter {
  const files: { project: string; file: string; seconds: number }[] = [];
  return {
    onTestModuleEnd(testModule) {
      const d = testModule.diagnostic();
      const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
      files.push({ project: testModule.project.name, file: relative(process.cwd(), testModule.moduleId), seconds: Math.round(ms / 100) / 10 });
    },
    onTestRunEnd() {
      mkdirSync(dirname(outputFile), { recursive: true });
      writeFileSync(outputFile, JSON.stringify(files.sort((a, b) => b.seconds - a.seconds)));
    },
  };
}

#!/usr/bin/env node
// Sums the Vitest JSON reports in a folder and prints one plain closing line for CI:
// "N passed, N failed" (", N skipped" when any were skipped), after the name and first message line of
// each failure, so a CI log that keeps only its tail still says what failed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'reports';
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
  const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  passed += report.numPassedTests ?? 0;
  // A file that failed outside its tests (a hook, an import) counts once more.
  const brokenFiles = (report.testResults ?? []).filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
  ).length;
  failed += (report.numFailedTests ?? 0) + brokenFiles;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const result of report.testResults ?? []) {
    const failures = (result.assertionResults ?? []).filter((test) => test.status === 'failed');
    if (result.status === 'failed' && failures.length === 0) console.log(`FAILED ${result.name}: ${firstLine(result.message)}`);
    for (const test of failures) console.log(`FAILED ${result.name} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
  }
  console.log(`${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests} skipped`);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);

function firstLine(text) {
  return (text ?? '').split('\n')[0].slice(0, 300);
}

#!/usr/bin/env node
// Sums the Vitest JSON reports in a folder and prints CI's closing lines: the name and first
// message line of each failure, each report's counts, where the time went (timings.jsonl: install,
// each typecheck and lint tool, each test pass) and the ten slowest test files (*.files.json), then
// how many distinct tests passed, and one plain line "N passed, N failed" (", N skipped" when any
// were skipped), so a CI log that keeps only its tail still says what failed and what it cost.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'reports';
const files = readdirSync(dir).sort();
let passed = 0;
let failed = 0;
let skipped = 0;
// A test that runs in two passes (on Postgres, then on PGlite) is one test run twice.
const distinct = new Set();
for (const file of files.filter((name) => name.endsWith('.json') && !name.endsWith('.files.json'))) {
  const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  passed += report.numPassedTests ?? 0;
  // A file that failed outside its tests (a hook, an import) counts once more.
  const brokenFiles = (report.testResults ?? []).filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
  ).length;
  failed += (report.numFailedTests ?? 0) + brokenFiles;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const result of report.testResults ?? []) {
    for (const test of result.assertionResults ?? []) if (test.status === 'passed') distinct.add(`${result.name} > ${test.fullName}`);
    const failures = (result.assertionResults ?? []).filter((test) => test.status === 'failed');
    if (result.status === 'failed' && failures.length === 0) console.log(`FAILED ${result.name}: ${firstLine(result.message)}`);
    for (const test of failures) console.log(`FAILED ${result.name} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
  }
  console.log(`${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests} skipped`);
}

const timingsFile = join(dir, 'timings.jsonl');
if (existsSync(timingsFile)) {
  const timings = readFileSync(timingsFile, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const byStep = new Map();
  for (const { step, seconds } of timings) byStep.set(step, (byStep.get(step) ?? 0) + seconds);
  console.log(`time by step (s, each command's own wall time, side by side ones summed): ${[...byStep].map(([step, s]) => `${step} ${round(s)}`).join(' · ')}`);
  console.log(`time by command (s): ${timings.map(({ name, seconds, ok }) => `${name} ${seconds}${ok ? '' : ' (failed)'}`).join(' · ')}`);
}

const slowest = files
  .filter((name) => name.endsWith('.files.json'))
  .flatMap((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')).map((entry) => ({ ...entry, pass: name.replace('.files.json', '') })))
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, 10);
if (slowest.length) console.log(`slowest files (s): ${slowest.map(({ pass, file, seconds }) => `${file} [${pass}] ${seconds}`).join(' · ')}`);

console.log(`distinct tests passed: ${distinct.size} (a test run on both Postgres and PGlite counts once)`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);

function firstLine(text) {
  return (text ?? '').split('\n')[0].slice(0, 300);
}

function round(seconds) {
  return Math.round(seconds * 10) / 10;
}

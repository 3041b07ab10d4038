#!/usr/bin/env node
// Runs the named steps of the project's checks, each command timed: `npm test` runs them all,
// `npm run check` all but e2e, `npm run typecheck` and `npm run lint` one each. typecheck and lint
// run together, up to one command a core; the test steps run one after another. Every step runs
// even when one before it failed, so one run reports every failure; the exit code is 1 if any did.
// With TEST_REPORT_DIR set, each command's seconds are appended to timings.jsonl there, which
// scripts/test-summary.mjs reads for CI's closing lines.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const cache = join(root, 'node_modules', '.cache');

// Every tsconfig.json of the workspaces (as their own typecheck scripts name them); each is checked
// on its own, incrementally from the last run.
const tsconfigs = [
  'apps/api',
  'apps/console',
  'apps/identity',
  'apps/identity/ui',
  'bench',
  'e2e',
  'e2e/ory-elements-app',
  'packages/contracts',
  'packages/db',
  'packages/service',
  'packages/ui-kit',
];

/** One step: commands that may run side by side (`parallel`) or one after another. */
const steps = {
  lint: {
    parallel: true,
    commands: [
      { name: 'eslint', argv: ['eslint', '--max-warnings', '0', '--cache', '--cache-location', join(cache, 'eslint/'), '.'] },
      { name: 'prettier', argv: ['prettier', '--check', '--cache', '--log-level', 'warn', '**/*.{ts,tsx,js,mjs,cjs,css}'] },
      { name: 'dependency-cruiser', argv: ['depcruise', '--config', '.dependency-cruiser.cjs', 'apps', 'packages', 'e2e', 'bench', 'scripts'] },
      { name: 'knip', argv: ['knip', '--no-progress'] },
    ],
  },
  typecheck: {
    parallel: true,
    commands: tsconfigs.map((dir) => ({
      name: `tsc ${dir}`,
      argv: ['tsc', '--noEmit', '-p', dir, '--incremental', '--tsBuildInfoFile', join(cache, 'tsc', `${dir.replaceAll('/', '-')}.tsbuildinfo`)],
    })),
  },
  // The service tests on DATABASE_URL's server when it is set (CI), on PGlite when not.
  unit: { commands: [{ name: 'unit', argv: ['vitest', 'run'] }] },
  // The SQL the money rests on (migrations, database functions, credit, metering) on the embedded
  // default as well, whatever DATABASE_URL says: `npm start` runs on PGlite.
  pglite: {
    commands: [
      {
        name: 'pglite',
        argv: [
          'vitest',
          'run',
          ...['--project', 'db', '--project', 'api'],
          ...[
            'packages/db/src',
            'apps/api/src/db/',
            'apps/api/src/domain/credit/',
            'apps/api/src/domain/metering/',
            'apps/api/src/routes/v1/meter-invariant',
            'apps/api/src/money-model',
          ],
        ],
        env: { DATABASE_URL: '', TEST_REPORT_NAME: 'pglite' },
      },
    ],
  },
  e2e: { commands: [{ name: 'e2e', argv: ['vitest', 'run', '--config', 'e2e/vitest.config.ts'] }] },
};

const requested = process.argv.slice(2);
for (const name of requested) {
  if (!(name in steps)) {
    console.error(`Unknown step "${name}"; the steps are: ${Object.keys(steps).join(', ')}.`);
    process.exit(2);
  }
}

const reportDir = process.env.TEST_REPORT_DIR;
const timings = [];
let failed = false;

// Side by side in the order listed above, the longest-running tools first.
const staticSteps = Object.keys(steps).filter((name) => requested.includes(name) && steps[name].parallel);
await runPool(
  staticSteps.flatMap((name) => steps[name].commands.map((command) => ({ ...command, step: name }))),
  availableParallelism(),
);
for (const name of requested.filter((step) => !steps[step].parallel)) {
  await runPool(
    steps[name].commands.map((command) => ({ ...command, step: name })),
    1,
  );
}

console.log(`\n${timings.map(({ name, seconds, ok }) => `${name} ${seconds} s${ok ? '' : ' (failed)'}`).join(' · ')}`);
process.exit(failed ? 1 : 0);

/** Runs the commands, at most `width` at a time, in the order listed; side by side, a command's output is printed only if it fails. */
async function runPool(commands, width) {
  const queue = [...commands];
  const worker = async () => {
    for (let command = queue.shift(); command; command = queue.shift()) await run(command, width > 1);
  };
  await Promise.all(Array.from({ length: Math.min(width, commands.length) }, worker));
}

function run(command, buffered) {
  const started = performance.now();
  const [bin, ...args] = command.argv;
  const child = spawn(bin, args, {
    cwd: root,
    // The tools' binaries, also when this script is run without npm.
    env: { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH}`, ...command.env },
    stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit',
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => {
    child.on('error', (error) => (output += `${error.message}\n`));
    child.on('close', (code) => {
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      const ok = code === 0;
      if (!ok) failed = true;
      if (buffered && !ok) process.stdout.write(`\n── ${command.name} failed\n${output}`);
      const timing = { step: command.step, name: command.name, seconds, ok };
      timings.push(timing);
      if (reportDir) {
        mkdirSync(reportDir, { recursive: true });
        appendFileSync(join(reportDir, 'timings.jsonl'), `${JSON.stringify(timing)}\n`);
      }
      resolve();
    });
  });
}

#!/usr/bin/env node
// Installs dependencies when node_modules is missing or older than package-lock.json, so
// `npm start` and `npm test` work on a fresh clone. Node built-ins only: it runs before anything
// is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const lockFile = join(root, 'package-lock.json');
const installed = join(root, 'node_modules', '.package-lock.json');

const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);

if (mtime(installed) < mtime(lockFile)) {
  console.log('Installing dependencies (npm ci)…');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('npm ci failed; see the messages above.');
    process.exit(result.status ?? 1);
  }
}

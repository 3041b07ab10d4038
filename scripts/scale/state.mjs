// What scale:up made, for kill, failover and down: .scale/state.json and the shell lines of .scale/env.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { envFile, stateFile } from './topology.mjs';

export function readState() {
  if (!existsSync(stateFile)) throw new Error('No topology is up (.scale/state.json is missing): run `npm run scale:up` first.');
  return JSON.parse(readFileSync(stateFile, 'utf8'));
}

export function writeState(state) {
  writeFileSync(stateFile, `${JSON.stringify(state, null, 2)}\n`);
}

/** `KEY=value` lines a shell can source (`set -a; . .scale/env; set +a`); values with spaces quoted. */
export function writeEnvFile(values) {
  const lines = Object.entries(values).map(([key, value]) => `${key}=${/^[\w@%+=:,./-]*$/.test(value) ? value : `"${value}"`}`);
  writeFileSync(envFile, `${lines.join('\n')}\n`);
}

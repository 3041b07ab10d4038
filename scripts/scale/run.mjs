// Running the system tools the topology is made of, with their output kept for the error message.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** Runs a command to completion; throws with its output when it fails. */
export function run(command, options = {}) {
  const result = spawnSync(command[0], command.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
  if (result.error) throw new Error(`${command.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
    throw new Error(`${command.join(' ')} exited with ${result.status ?? result.signal}${output ? `:\n${output}` : ''}`);
  }
  return result.stdout ?? '';
}

/** Runs a command whose failure is expected and harmless (removing what may not exist). */
export function runQuietly(command) {
  return spawnSync(command[0], command.slice(1), { stdio: 'ignore' }).status === 0;
}

const root = process.getuid?.() === 0;

/** Postgres, initdb and PgBouncer refuse to run as root: as root they run as `postgres`, else as we are. */
export const asPostgres = (command) => (root ? ['runuser', '-u', 'postgres', '--', ...command] : command);

/** Hands what Postgres or PgBouncer writes to the user they run as (nothing to do unless root). */
export function giveToPostgres(...paths) {
  if (root) run(['chown', '-R', 'postgres:postgres', ...paths]);
}

export const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

let interrupted = false;

/** Ctrl-C during scale:up: every wait gives up at its next poll, so up can remove what it started. */
export function interruptWaits() {
  interrupted = true;
}

/** Polls `check` until it returns something truthy or the time is up; an error marked `fatal` stops it at once. */
export async function waitFor(what, check, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < deadline) {
    if (interrupted) throw new Error('interrupted');
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      if (error.fatal) throw error;
      lastError = error;
    }
    await sleep(250);
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${lastError ? ` (${lastError.message.split('\n')[0]})` : ''}`);
}

export function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function readPid(file) {
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim().split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** The last lines of a log, for an error message. */
export function tail(file, lines = 15) {
  if (!existsSync(file)) return '';
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

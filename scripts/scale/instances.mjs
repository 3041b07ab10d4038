// The service instances: each runs its built bundle inside its host, as `npm start` runs it.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { services } from '../stack/services.mjs';
import { logDir, onHost, pidDir, ports } from './topology.mjs';
import { isAlive, readPid, tail, waitFor } from './run.mjs';

const stack = Object.fromEntries(services({ dev: false }).map((service) => [service.name, service]));
export const builtServices = Object.values(stack);

/** api-1…3, identity-1…2, console-1: one per host of that role. */
export function instancesOf(topo) {
  const count = {};
  return topo.hosts
    .filter((host) => host.role in stack)
    .map((host) => {
      count[host.role] = (count[host.role] ?? 0) + 1;
      return { name: `${host.role}-${count[host.role]}`, service: host.role, host, address: host.address, port: ports[host.role] };
    });
}

export const pidFile = (instance) => join(pidDir, `${instance.name}.pid`);
export const logFile = (instance) => join(logDir, `${instance.name}.log`);

/** The caller's environment (SMTP_URL, SYSTEM_ADMIN_EMAILS, …) under the topology's own names. */
export function instanceEnv(instance, shared) {
  const env = { ...process.env, ...shared, HOST: instance.address };
  env[`${instance.service.toUpperCase()}_PORT`] = String(instance.port);
  // One Postgres for both services here, whatever the caller's shell had.
  delete env.IDENTITY_DATABASE_URL;
  return env;
}

export function startInstance(instance, shared) {
  mkdirSync(pidDir, { recursive: true });
  mkdirSync(logDir, { recursive: true });
  const service = stack[instance.service];
  const log = openSync(logFile(instance), 'a');
  const [command, ...args] = onHost(instance.host, service.command);
  // Detached and unreferenced: the instance outlives `npm run scale:up`.
  const child = spawn(command, args, { cwd: service.dir, env: instanceEnv(instance, shared), stdio: ['ignore', log, log], detached: true });
  closeSync(log);
  writeFileSync(pidFile(instance), `${child.pid}\n`);
  child.unref();
}

export function waitHealthy(instance) {
  return waitFor(
    `${instance.name} at http://${instance.address}:${instance.port}/healthz`,
    async () => {
      const pid = readPid(pidFile(instance));
      if (!pid || !isAlive(pid)) throw Object.assign(new Error(`${instance.name} exited:\n${tail(logFile(instance))}`), { fatal: true });
      const response = await fetch(`http://${instance.address}:${instance.port}/healthz`);
      return response.ok;
    },
    120_000,
  );
}

/** SIGTERM, then SIGKILL for what has not stopped within `graceMs`. */
export async function stopPids(pids, graceMs = 5_000) {
  const alive = pids.filter(isAlive);
  for (const pid of alive) process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive.some(isAlive) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100));
  for (const pid of alive.filter(isAlive)) process.kill(pid, 'SIGKILL');
}

export function forgetInstance(instance) {
  if (existsSync(pidFile(instance))) rmSync(pidFile(instance));
}

// The hosts of the scale topology, their addresses and where everything it makes is kept.
import { join } from 'node:path';
import { root } from '../stack/services.mjs';

export const scaleDir = join(root, '.scale');
export const envFile = join(scaleDir, 'env');
export const stateFile = join(scaleDir, 'state.json');
export const logDir = join(scaleDir, 'logs');
export const pidDir = join(scaleDir, 'pids');

export const bridge = { name: 'mw-br0', prefix: 24 };

/**
 * Every host: a network namespace in `netns` mode, an address on lo in `loopback` mode. The
 * primary and the replica get a host each, so the failover drill loses a whole host.
 */
const hosts = [
  { name: 'mw-api1', role: 'api', octet: 11 },
  { name: 'mw-api2', role: 'api', octet: 12 },
  { name: 'mw-api3', role: 'api', octet: 13 },
  { name: 'mw-identity1', role: 'identity', octet: 21 },
  { name: 'mw-identity2', role: 'identity', octet: 22 },
  { name: 'mw-console1', role: 'console', octet: 26 },
  { name: 'mw-db1', role: 'primary', octet: 31 },
  { name: 'mw-db2', role: 'replica', octet: 32 },
  { name: 'mw-client1', role: 'client', octet: 41 },
  { name: 'mw-client2', role: 'client', octet: 42 },
  { name: 'mw-client3', role: 'client', octet: 43 },
];

export const hostNames = hosts.map((host) => host.name);

/**
 * The addresses for a mode: 10.77.0.0/24 on a bridge between namespaces, or, where namespaces are
 * not allowed, 127.77.0.0/24, which Linux routes to lo without adding anything.
 */
export function topology(mode) {
  const net = mode === 'netns' ? '10.77.0' : '127.77.0';
  return {
    mode,
    // HAProxy and PgBouncer run in the root namespace, on the bridge's own address.
    gateway: `${net}.1`,
    hosts: hosts.map((host) => ({ ...host, address: `${net}.${host.octet}`, netns: mode === 'netns' ? host.name : undefined })),
  };
}

export const ports = { console: 3000, api: 8080, identity: 4000, postgres: 5432, pgbouncer: 6432 };

/** Runs a command on a host: inside its namespace, or as is in loopback mode. */
export function onHost(host, command) {
  return host.netns ? ['ip', 'netns', 'exec', host.netns, ...command] : command;
}

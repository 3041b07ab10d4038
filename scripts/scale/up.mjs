#!/usr/bin/env node
// `npm run scale:up`: builds what is stale, then brings up the multi-host topology (hosts as network
// namespaces, a Postgres primary and streaming replica, PgBouncer, three api and two identity
// instances and a console behind HAProxy), writes .scale/env and exits, leaving it all running.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildStale } from '../stack/build-stale.mjs';
import { startHaproxy, serverStates } from './haproxy.mjs';
import { builtServices, instancesOf, startInstance, waitHealthy } from './instances.mjs';
import { createNetwork } from './network.mjs';
import { startPgbouncer } from './pgbouncer.mjs';
import { postgresUrl, startPrimary, startReplica, waitStreaming } from './postgres.mjs';
import { ensureTools } from './tools.mjs';
import { interruptWaits, waitFor } from './run.mjs';
import { writeEnvFile, writeState } from './state.mjs';
import { tearDown } from './teardown.mjs';
import { envFile, ports, scaleDir, stateFile } from './topology.mjs';

if (existsSync(stateFile)) {
  console.error('A scale topology is already up (.scale/state.json): `npm run scale:down` first.');
  process.exit(1);
}

try {
  ensureTools();
  for (const service of builtServices) buildStale(service);
} catch (error) {
  console.error(error.message);
  process.exit(1);
}

// Ctrl-C stops the bring-up at its next step or poll, and the failure path removes what it made;
// the instances, in process groups of their own, never see the signal.
let interrupted = false;
process.on('SIGINT', () => {
  interrupted = true;
  interruptWaits();
});
const step = (what) => {
  if (interrupted) throw new Error('interrupted');
  console.log(`scale:up: ${what}…`);
};

async function bringUp() {
  mkdirSync(scaleDir, { recursive: true });
  step('creating the hosts');
  const topo = createNetwork();
  const role = (name) => topo.hosts.filter((host) => host.role === name);
  const [primary] = role('primary');
  const [replica] = role('replica');
  const instances = instancesOf(topo);
  writeState({ mode: topo.mode, gateway: topo.gateway, primary: primary.name, replica: replica.name, instances, hosts: topo.hosts });

  step(`starting the Postgres primary on ${primary.name} (${primary.address})`);
  startPrimary(primary, topo.gateway.replace(/\.1$/, '.0'));
  step(`starting the streaming replica on ${replica.name} (${replica.address})`);
  startReplica(replica, primary);
  await waitStreaming(primary, replica);
  step('starting PgBouncer (transaction mode)');
  startPgbouncer(topo.gateway, primary);

  const url = (service) => `http://${topo.gateway}:${ports[service]}`;
  const shared = {
    DATA_DIR: join(scaleDir, 'data'),
    CONSOLE_URL: url('console'),
    API_URL: url('api'),
    IDENTITY_URL: url('identity'),
    IDENTITY_INTERNAL_URL: url('identity'),
    DATABASE_URL: postgresUrl(topo.gateway, ports.pgbouncer),
    DATABASE_REPLICA_URL: postgresUrl(replica.address),
    // Only the gateway's X-Forwarded-For is believed: the per-address limits count client hosts.
    TRUST_PROXY: topo.gateway,
  };
  mkdirSync(shared.DATA_DIR, { recursive: true });

  // The first instance of each service migrates alone; the rest boot onto a migrated schema.
  const [first, rest] = [instances.filter((i) => i.name.endsWith('-1')), instances.filter((i) => !i.name.endsWith('-1'))];
  for (const batch of [first, rest]) {
    step(`starting ${batch.map((instance) => `${instance.name} (${instance.host.name} ${instance.address})`).join(', ')}`);
    for (const instance of batch) startInstance(instance, shared);
    await Promise.all(batch.map(waitHealthy));
  }

  step(`starting HAProxy on ${topo.gateway}`);
  startHaproxy(topo.gateway, instances);
  await waitFor('HAProxy to see every instance up', async () => Object.values(await serverStates()).every((status) => status === 'UP'), 30_000);
  for (const service of ['console', 'api', 'identity'])
    await waitFor(`${url(service)}/healthz`, async () => (await fetch(`${url(service)}/healthz`)).ok, 10_000);

  const clients = role('client');
  writeEnvFile({
    SCALE_NETWORK: topo.mode,
    CONSOLE_URL: shared.CONSOLE_URL,
    API_URL: shared.API_URL,
    IDENTITY_URL: shared.IDENTITY_URL,
    DATABASE_URL: shared.DATABASE_URL,
    // The primary without the pooler, for a whole session (psql, pg_dump); the services need none.
    DATABASE_DIRECT_URL: postgresUrl(primary.address),
    DATABASE_REPLICA_URL: shared.DATABASE_REPLICA_URL,
    DATA_DIR: shared.DATA_DIR,
    // Namespace names in netns mode (`ip netns exec <host> …`); in loopback mode, bind to the address.
    CLIENT_HOSTS: clients.map((host) => host.name).join(' '),
    CLIENT_ADDRESSES: clients.map((host) => host.address).join(' '),
    ...Object.fromEntries(clients.map((host, index) => [`CLIENT_${index + 1}_ADDRESS`, host.address])),
    // Each instance directly, for what is per instance (the dev outboxes, /metrics).
    ...Object.fromEntries(
      ['api', 'identity'].map((service) => [
        `${service.toUpperCase()}_INSTANCE_URLS`,
        instances
          .filter((instance) => instance.service === service)
          .map((instance) => `http://${instance.address}:${instance.port}`)
          .join(' '),
      ]),
    ),
    HAPROXY_STATS_SOCKET: join(scaleDir, 'haproxy', 'haproxy.sock'),
  });
  return { topo, shared, instances };
}

try {
  const { topo, shared, instances } = await bringUp();
  console.log(
    [
      '',
      `The scale topology is up (${topo.mode === 'netns' ? 'network namespaces on mw-br0' : 'loopback addresses'}):`,
      `  console  ${shared.CONSOLE_URL}`,
      `  api      ${shared.API_URL}`,
      `  identity ${shared.IDENTITY_URL}`,
      `  postgres ${shared.DATABASE_URL} (PgBouncer → primary), replica ${shared.DATABASE_REPLICA_URL}`,
      `  instances ${instances.map((instance) => `${instance.name}@${instance.address}`).join(' ')}`,
      `Logs in .scale/logs; load the environment with: set -a; . ${envFile}; set +a`,
      'Stop it with: npm run scale:down',
      '',
    ].join('\n'),
  );
  process.exit(0);
} catch (error) {
  console.error(`scale:up failed: ${error.message}\nRemoving what it started…`);
  await tearDown();
  process.exit(1);
}

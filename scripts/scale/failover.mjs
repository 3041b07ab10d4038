#!/usr/bin/env node
// `npm run scale:failover`: the drill. Stops the primary as a crash would, promotes the replica and
// points PgBouncer at it; the services keep running and keep their DATABASE_URL (PgBouncer).
import { readFileSync, writeFileSync } from 'node:fs';
import { repointPgbouncer } from './pgbouncer.mjs';
import { postgresUrl, promote, stop } from './postgres.mjs';
import { readState, writeState } from './state.mjs';
import { envFile } from './topology.mjs';

try {
  const state = readState();
  if (!state.replica) throw new Error(`No replica left to promote: ${state.primary} is already the only server.`);
  const [primary, replica] = [state.primary, state.replica].map((name) => state.hosts.find((host) => host.name === name));
  let started = Date.now();
  if (!stop(primary, 'immediate')) throw new Error(`could not stop the primary on ${primary.name}`);
  console.log(`scale:failover: primary on ${primary.name} (${primary.address}) stopped (immediate)`);
  await promote(replica);
  console.log(`scale:failover: ${replica.name} (${replica.address}) promoted and taking writes (${Date.now() - started} ms after the stop)`);
  started = Date.now();
  const line = repointPgbouncer(state.gateway, replica);
  console.log(`scale:failover: PgBouncer reloaded onto ${replica.address} (${Date.now() - started} ms): ${line}`);
  writeState({ ...state, primary: replica.name, replica: undefined, failedOver: primary.name });
  // Migrations at a later boot must reach the new primary directly; DATABASE_URL stays PgBouncer.
  writeFileSync(envFile, readFileSync(envFile, 'utf8').replace(/^DATABASE_DIRECT_URL=.*$/m, `DATABASE_DIRECT_URL=${postgresUrl(replica.address)}`));
} catch (error) {
  console.error(`scale:failover: ${error.message}`);
  process.exit(1);
}

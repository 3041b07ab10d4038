#!/usr/bin/env node
// `npm run scale:kill -- api|identity`: SIGKILLs one running instance of that service (a crash, no
// shutdown), then waits until HAProxy's health checks have taken it out.
import { serverStates } from './haproxy.mjs';
import { forgetInstance, pidFile } from './instances.mjs';
import { isAlive, readPid, waitFor } from './run.mjs';
import { readState } from './state.mjs';

const service = process.argv[2];
if (!['api', 'identity', 'console'].includes(service)) {
  console.error('Usage: npm run scale:kill -- api|identity');
  process.exit(1);
}

try {
  const victim = readState().instances.find((instance) => instance.service === service && isAlive(readPid(pidFile(instance)) ?? 0));
  if (!victim) throw new Error(`No ${service} instance is running.`);
  process.kill(readPid(pidFile(victim)), 'SIGKILL');
  forgetInstance(victim);
  console.log(`scale:kill: killed ${victim.name} (${victim.host.name} ${victim.address}) with SIGKILL`);
  await waitFor(`HAProxy to mark ${victim.name} down`, async () => (await serverStates())[victim.name] === 'DOWN', 15_000);
  console.log(`scale:kill: HAProxy has taken ${victim.name} out`);
} catch (error) {
  console.error(`scale:kill: ${error.message}`);
  process.exit(1);
}

// Removes whatever scale:up made, in whatever state it got to; running it twice is harmless.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { haproxyPid } from './haproxy.mjs';
import { stopPids } from './instances.mjs';
import { removeNetwork } from './network.mjs';
import { pgbouncerPid } from './pgbouncer.mjs';
import { serverHosts, stop } from './postgres.mjs';
import { readPid } from './run.mjs';
import { pidDir, scaleDir } from './topology.mjs';

export async function tearDown() {
  const instancePids = existsSync(pidDir) ? readdirSync(pidDir).map((file) => readPid(join(pidDir, file))) : [];
  await stopPids([...instancePids, haproxyPid(), pgbouncerPid()].filter(Boolean));
  for (const host of serverHosts()) if (!stop(host, 'fast')) stop(host, 'immediate');
  removeNetwork();
  rmSync(scaleDir, { recursive: true, force: true });
}

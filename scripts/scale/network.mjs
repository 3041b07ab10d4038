// The hosts as network namespaces on one bridge, or loopback addresses where namespaces are not allowed.
import { bridge, hostNames, topology } from './topology.mjs';
import { run, runQuietly } from './run.mjs';

/**
 * Namespaces need root and a kernel that allows them (a container may not); without them every
 * host is an address on lo. SCALE_NETWORK=loopback asks for the fallback.
 */
function chooseMode() {
  if (process.env.SCALE_NETWORK === 'loopback' || process.getuid?.() !== 0) return 'loopback';
  if (!runQuietly(['ip', 'netns', 'add', 'mw-probe'])) return 'loopback';
  runQuietly(['ip', 'netns', 'del', 'mw-probe']);
  return 'netns';
}

export function createNetwork() {
  const topo = topology(chooseMode());
  if (topo.mode === 'loopback') return topo;
  run(['ip', 'link', 'add', bridge.name, 'type', 'bridge']);
  run(['ip', 'addr', 'add', `${topo.gateway}/${bridge.prefix}`, 'dev', bridge.name]);
  run(['ip', 'link', 'set', bridge.name, 'up']);
  for (const host of topo.hosts) {
    const veth = `mw-v${host.octet}`;
    const inside = ['ip', 'netns', 'exec', host.netns];
    run(['ip', 'netns', 'add', host.netns]);
    run(['ip', 'link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', host.netns]);
    run(['ip', 'link', 'set', veth, 'master', bridge.name, 'up']);
    run([...inside, 'ip', 'link', 'set', 'lo', 'up']);
    run([...inside, 'ip', 'addr', 'add', `${host.address}/${bridge.prefix}`, 'dev', 'eth0']);
    run([...inside, 'ip', 'link', 'set', 'eth0', 'up']);
  }
  return topo;
}

/** Namespaces in use by anything of ours: their processes are killed, then the namespaces removed. */
export function removeNetwork() {
  const existing = new Set(
    runQuietly(['ip', 'netns', 'list'])
      ? run(['ip', 'netns', 'list'])
          .split('\n')
          .map((line) => line.split(' ')[0])
      : [],
  );
  for (const name of [...hostNames, 'mw-probe'].filter((name) => existing.has(name))) {
    for (const pid of run(['ip', 'netns', 'pids', name]).split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    runQuietly(['ip', 'netns', 'del', name]);
  }
  // Removing a namespace removes its veth pair; the bridge is left.
  runQuietly(['ip', 'link', 'del', bridge.name]);
}

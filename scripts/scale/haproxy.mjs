// HAProxy on the gateway address: round robin over each service's instances, health-checked.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { ports, scaleDir } from './topology.mjs';
import { readPid, run } from './run.mjs';
import { haproxyBinary } from './tools.mjs';

const dir = join(scaleDir, 'haproxy');
const configFile = join(dir, 'haproxy.cfg');
const pidFile = join(dir, 'haproxy.pid');
export const statsSocket = join(dir, 'haproxy.sock');

function proxy(gateway, service, instances) {
  return [
    `frontend ${service}`,
    `  bind ${gateway}:${ports[service]}`,
    `  default_backend ${service}_instances`,
    '',
    `backend ${service}_instances`,
    '  option httpchk GET /healthz',
    '  http-check expect status 200',
    // Names the instance that answered, so a client can see the round robin at work.
    '  http-response set-header X-Meterway-Instance %s',
    ...instances.map((instance) => `  server ${instance.name} ${instance.address}:${ports[service]}`),
    '',
  ];
}

function config(gateway, instances) {
  return [
    'global',
    `  stats socket ${statsSocket} mode 600 level admin`,
    '',
    'defaults',
    '  mode http',
    '  balance roundrobin',
    // X-Forwarded-For with the client host's address; the services trust it from the gateway only.
    '  option forwardfor',
    // A request whose connection to a dead instance fails goes to another one before the health
    // check has noticed (a connection refused means the instance never saw the request).
    '  option redispatch',
    '  retries 3',
    // From the gateway address in loopback mode too, where the kernel would pick 127.0.0.1.
    `  source ${gateway}`,
    '  default-server check inter 1s fall 2 rise 2',
    '  timeout connect 2s',
    '  timeout http-request 10s',
    // Longer than a gateway call may take upstream (UPSTREAM_TIMEOUT_MS, 60 s by default).
    '  timeout client 150s',
    '  timeout server 150s',
    '',
    ...['api', 'identity', 'console'].flatMap((service) =>
      proxy(
        gateway,
        service,
        instances.filter((instance) => instance.service === service),
      ),
    ),
  ].join('\n');
}

export function startHaproxy(gateway, instances) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(configFile, config(gateway, instances));
  run([haproxyBinary, '-c', '-q', '-f', configFile]);
  run([haproxyBinary, '-D', '-f', configFile, '-p', pidFile]);
}

export const haproxyPid = () => readPid(pidFile);

/** One command on the stats socket (`show stat`, …), its whole answer. */
function ask(command) {
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = createConnection(statsSocket, () => socket.end(`${command}\n`));
    socket.setEncoding('utf8').on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolve(answer)).on('error', reject);
  });
}

/** Each server's state as HAProxy's health checks see it: `{ 'api-1': 'UP', … }`. */
export async function serverStates() {
  const [header, ...rows] = (await ask('show stat')).replace(/^# /, '').trim().split('\n');
  const columns = header.split(',');
  const [server, status] = ['svname', 'status'].map((name) => columns.indexOf(name));
  return Object.fromEntries(
    rows
      .map((row) => row.split(','))
      .filter((cells) => !['FRONTEND', 'BACKEND'].includes(cells[server]))
      .map((cells) => [cells[server], cells[status]]),
  );
}

// The load generator of bench/gateway/overhead.ts, in a process of its own so the client never
// shares an event loop with a server it measures. It answers the parent's commands over IPC:
// an autocannon run, or sequential requests timed with performance.now() (autocannon's histogram
// keeps whole milliseconds only), taken round-robin across the targets so that load on the machine
// that comes and goes touches every target alike.
import { Agent, request } from 'node:http';
import autocannon from 'autocannon';

export type Target = { name: string; url: string; headers: Record<string, string>; body: string };

export type CannonSummary = {
  p50: number;
  p99: number;
  requestsPerSecond: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
};

export type SequentialSummary = { p50: number; p90: number; p99: number; mean: number; ok: number; failed: number; samples: number };

export type LoadCommand =
  | { id: number; kind: 'cannon'; target: Target; connections: number; seconds: number }
  | { id: number; kind: 'sequential'; targets: Target[]; samples: number; warmup: number };

export type LoadReply = { id: number; cannon?: CannonSummary; sequential?: Record<string, SequentialSummary>; error?: string };

/**
 * A publishable key is called by many visitors: each connection is a visitor of its own, with its
 * own address (X-Forwarded-For, which the gateway believes with TRUST_PROXY=1; the other targets
 * ignore it), so per-address caps count each one apart, as they would behind a load balancer.
 */
const visitorAddress = (connection: number) => `10.0.${connection >> 8}.${connection & 255}`;

async function cannon(target: Target, connections: number, seconds: number): Promise<CannonSummary> {
  let connection = 0;
  const result = await autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: target.body,
    connections,
    duration: seconds,
    setupClient: (client) => client.setHeaders({ ...target.headers, 'x-forwarded-for': visitorAddress(connection++) }),
  });
  return {
    p50: result.latency.p50,
    p99: result.latency.p99,
    requestsPerSecond: result.requests.average,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/** One request on the target's single keep-alive connection: status and milliseconds. */
function once(target: Target, agent: Agent): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const outgoing = request(target.url, { method: 'POST', headers: target.headers, agent }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(target.body);
  });
}

async function sequential(targets: Target[], samples: number, warmup: number): Promise<Record<string, SequentialSummary>> {
  const agents = targets.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
  const durations = targets.map(() => [] as number[]);
  const ok = targets.map(() => 0);
  const failed = targets.map(() => 0);
  for (let round = 0; round < warmup + samples; round++) {
    for (const [index, target] of targets.entries()) {
      const { status, ms } = await once(target, agents[index]!);
      if (status >= 200 && status < 300) ok[index]!++;
      else failed[index]!++;
      if (round >= warmup) durations[index]!.push(ms);
    }
  }
  for (const agent of agents) agent.destroy();
  return Object.fromEntries(
    targets.map((target, index) => {
      const sorted = durations[index]!.sort((x, y) => x - y);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
      const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
      return [target.name, { p50: at(0.5), p90: at(0.9), p99: at(0.99), mean, ok: ok[index]!, failed: failed[index]!, samples: sorted.length }];
    }),
  );
}

process.on('message', (command: LoadCommand) => {
  const work =
    command.kind === 'cannon'
      ? cannon(command.target, command.connections, command.seconds).then((summary): LoadReply => ({ id: command.id, cannon: summary }))
      : sequential(command.targets, command.samples, command.warmup).then((summary): LoadReply => ({ id: command.id, sequential: summary }));
  work.catch((error: unknown): LoadReply => ({ id: command.id, error: String(error) })).then((reply) => process.send?.(reply));
});
process.on('disconnect', () => process.exit(0));

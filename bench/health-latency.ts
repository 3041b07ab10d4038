import autocannon from 'autocannon';

type Target = { name: string; url: string };

/** Latency and throughput of the health checks: the floor every other route stands on. */
export async function measureHealth(targets: Target[]): Promise<void> {
  for (const target of targets) {
    for (const connections of [1, 32]) {
      const result = await autocannon({ url: target.url, connections, duration: 5 });
      console.log(
        `${target.name.padEnd(20)} c=${String(connections).padEnd(3)} p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms  ` +
          `${Math.round(result.requests.average)} req/s  errors ${result.errors + result.non2xx}`,
      );
    }
  }
}

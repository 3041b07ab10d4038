import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { metricsRoute } from './metrics-route.js';

/** node-postgres' Pool counts (PGlite has no pool: one in-process connection, so nothing to report). */
export type PoolCounts = { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number };

export type MetricsOptions = {
  /** Every metric's name starts with it: `meterway_api_`, `meterway_identity_`. */
  prefix: string;
  /** When set, `/metrics` answers only `Authorization: Bearer <token>`. */
  token: string | undefined;
  /** Without a token, production answers `/metrics` with 404: it is never exposed by default. */
  production: boolean;
  pool?: PoolCounts | undefined;
};

/**
 * The app's own Prometheus registry (never prom-client's global one: tests and benches run several
 * apps in one process), with the process metrics, the HTTP request durations by route and the
 * database pool; `GET /metrics` exposes it. The registry is emptied when the app closes.
 */
export function registerMetrics(app: FastifyInstance, options: MetricsOptions): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: options.prefix });
  observeRequestDurations(app, registry, options.prefix);
  if (options.pool) observePool(registry, options.prefix, options.pool);
  if (options.token !== undefined || !options.production) metricsRoute(app, registry, options.token);
  app.addHook('onClose', async () => registry.clear());
  return registry;
}

function observeRequestDurations(app: FastifyInstance, registry: Registry, prefix: string) {
  const durations = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: 'Time from receiving a request to sending the last byte of its answer, by route pattern, method and status code.',
    labelNames: ['route', 'method', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  // One bound child per route × method × status, so a request observes without building labels.
  const children = new Map<string, Histogram.Internal<'route' | 'method' | 'status_code'>>();
  // A callback hook: no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    // The route's pattern, never the raw URL (ids would make a series per request); no route: 404s.
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let child = children.get(key);
    if (!child) {
      child = durations.labels({ route, method: request.method, status_code: String(reply.statusCode) });
      children.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });
}

function observePool(registry: Registry, prefix: string, pool: PoolCounts) {
  // Read at scrape time, so the gauges cost nothing between scrapes.
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name: `${prefix}${name}`,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge('db_pool_in_use', 'Database connections checked out of the pool.', () => pool.totalCount - pool.idleCount);
  gauge('db_pool_idle', 'Open database connections waiting in the pool.', () => pool.idleCount);
  gauge('db_pool_waiting', 'Queries waiting for a database connection because the pool is exhausted.', () => pool.waitingCount);
}

import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type MetricsOptions, registerMetrics } from './metrics.js';
import { readMetrics, sampleValue } from './read-metrics.js';

const token = 'a-metrics-token-for-tests';
const apps: ReturnType<typeof Fastify>[] = [];

async function appWith(options: Partial<MetricsOptions>) {
  const app = Fastify();
  registerMetrics(app, { prefix: 'meterway_test_', token: undefined, production: false, ...options });
  app.get('/items/:id', async () => ({ ok: true }));
  apps.push(app);
  await app.ready();
  return app;
}

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

describe('GET /metrics', () => {
  it('with METRICS_TOKEN, answers only its bearer: 401 without it or with another, 200 with it', async () => {
    const app = await appWith({ token, production: true });
    const without = await app.inject({ url: '/metrics' });
    expect(without.statusCode).toBe(401);
    expect(without.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect((await app.inject({ url: '/metrics', headers: { authorization: 'Bearer another-token-of-some-length' } })).statusCode).toBe(401);
    expect((await app.inject({ url: '/metrics', headers: { authorization: token } })).statusCode).toBe(401);
    const granted = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    expect(granted.statusCode).toBe(200);
    expect(granted.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('without a token: open in development and tests, 404 in production', async () => {
    expect((await (await appWith({})).inject({ url: '/metrics' })).statusCode).toBe(200);
    expect((await (await appWith({ production: true })).inject({ url: '/metrics' })).statusCode).toBe(404);
  });

  it("exposes the process metrics and each request's duration under its route pattern, never the raw URL", async () => {
    const app = await appWith({});
    await app.inject({ url: '/items/42' });
    await app.inject({ url: '/items/43' });
    await app.inject({ url: '/nowhere/7' });
    const text = (await app.inject({ url: '/metrics' })).body;
    const { samples, types } = readMetrics(text);
    expect(types.get('meterway_test_http_request_duration_seconds')).toBe('histogram');
    expect(types.get('meterway_test_process_cpu_seconds_total')).toBe('counter');
    const labels = { route: '/items/:id', method: 'GET', status_code: '200' };
    expect(sampleValue(text, 'meterway_test_http_request_duration_seconds_count', labels)).toBe(2);
    expect(sampleValue(text, 'meterway_test_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(2);
    expect(sampleValue(text, 'meterway_test_http_request_duration_seconds_count', { route: 'unmatched', status_code: '404' })).toBe(1);
    expect(samples.some((sample) => sample.labels.route?.includes('42'))).toBe(false);
  });

  it('times a streamed answer written to the socket itself (the gateway hijacks its event streams)', async () => {
    const app = Fastify();
    registerMetrics(app, { prefix: 'meterway_test_', token: undefined, production: false });
    app.get('/events', (_request, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream' });
      reply.raw.end('data: [DONE]\n\n');
    });
    apps.push(app);
    expect((await app.inject({ url: '/events' })).body).toBe('data: [DONE]\n\n');
    const text = (await app.inject({ url: '/metrics' })).body;
    expect(sampleValue(text, 'meterway_test_http_request_duration_seconds_count', { route: '/events', status_code: '200' })).toBe(1);
  });

  it('reads the database pool at scrape time', async () => {
    const pool = { totalCount: 5, idleCount: 2, waitingCount: 0 };
    const app = await appWith({ pool });
    pool.waitingCount = 3;
    const text = (await app.inject({ url: '/metrics' })).body;
    expect(sampleValue(text, 'meterway_test_db_pool_in_use')).toBe(3);
    expect(sampleValue(text, 'meterway_test_db_pool_idle')).toBe(2);
    expect(sampleValue(text, 'meterway_test_db_pool_waiting')).toBe(3);
  });

  it('keeps each app its own counts, apart from any other app in the process', async () => {
    const first = await appWith({});
    const second = await appWith({});
    await first.inject({ url: '/items/1' });
    const count = async (app: typeof first) =>
      sampleValue((await app.inject({ url: '/metrics' })).body, 'meterway_test_http_request_duration_seconds_count', { route: '/items/:id' });
    expect(await count(first)).toBe(1);
    expect(await count(second)).toBe(0);
  });
});

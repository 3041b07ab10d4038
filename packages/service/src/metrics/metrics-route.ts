import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifySchema } from 'fastify';
import type { Registry } from 'prom-client';

const digest = (value: string) => createHash('sha256').update(value).digest();
// @fastify/swagger's flag (the api's OpenAPI document leaves operations out); Fastify ignores it.
const hidden = { hide: true } as FastifySchema;

/** `GET /metrics` in Prometheus' text format; with a token, only for `Authorization: Bearer <token>`. */
export function metricsRoute(app: FastifyInstance, registry: Registry, token: string | undefined): void {
  // Compared as digests: equal lengths for timingSafeEqual, and nothing learnt from the token's length.
  const expected = token === undefined ? undefined : digest(`Bearer ${token}`);
  app.get('/metrics', { schema: hidden }, async (request, reply) => {
    if (expected && !timingSafeEqual(digest(request.headers.authorization ?? ''), expected)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .type('application/problem+json')
        .send({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'Metrics need Authorization: Bearer with the METRICS_TOKEN.' });
    }
    return reply
      .header('cache-control', 'no-store')
      .type(registry.contentType)
      .send(await registry.metrics());
  });
}

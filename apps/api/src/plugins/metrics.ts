import { registerMetrics } from '@meterway/service';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { ApiDb } from '../db/index.js';
import type { Meter } from '../domain/metering/meter.js';
import type { ApiConfig } from '../env.js';
import type { GatewayMetrics } from '../gateway/gateway.js';

const prefix = 'meterway_api_';

/**
 * `GET /metrics` for the api (docs/operations.md lists every metric), and what the gateway counts
 * per call. A call only bumps children bound here once per label value: no label objects per call.
 */
export function apiMetrics(
  app: FastifyInstance,
  config: ApiConfig,
  db: ApiDb,
  meter: Meter,
): GatewayMetrics & { upstreamHeaders: (seconds: number) => void; replicaFallback: () => void } {
  const registers = [registerMetrics(app, { prefix, token: config.metricsToken, production: config.production, pool: db.pool })];
  const admissions = new Counter({
    name: `${prefix}gateway_admissions_total`,
    help: 'Chat completions admitted, or refused with the reason (the OpenAI error code answered).',
    labelNames: ['outcome', 'reason'] as const,
    registers,
  });
  const upstream = new Histogram({
    name: `${prefix}gateway_upstream_duration_seconds`,
    help: "The model provider's latency: to its response headers (phase=headers, HTTP providers only), and to the end of its answer (phase=total; a stream at the client's pace).",
    labelNames: ['phase'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 60, 120],
    registers,
  });
  const tokens = new Counter({
    name: `${prefix}gateway_tokens_charged_total`,
    help: 'Tokens charged by settled calls, by kind (input, output) and model.',
    labelNames: ['kind', 'model'] as const,
    registers,
  });
  const nanos = new Counter({ name: `${prefix}gateway_charged_nanodollars_total`, help: 'Nano-dollars (1e-9 USD) charged by settled calls.', registers });
  const overruns = new Counter({
    name: `${prefix}gateway_meter_overruns_total`,
    help: 'Settled calls whose actual cost exceeded what their hold reserved (the excess is charged from free credit).',
    registers,
  });
  const attempts = new Counter({
    name: `${prefix}gateway_provider_attempts_total`,
    help: 'Tries at a provider for calls routed to several (PROVIDERS_FILE), by provider and outcome: served, failed (the next provider may take over), skipped (its circuit breaker open).',
    labelNames: ['provider', 'outcome'] as const,
    registers,
  });
  const cacheHits = new Counter({
    name: `${prefix}gateway_cache_hits_total`,
    help: "Chat completions answered from their key's response cache: no provider, nothing charged.",
    registers,
  });
  const replicaFallbacks = new Counter({
    name: `${prefix}replica_fallbacks_total`,
    help: 'Lag-tolerant reads (usage list, chart, CSV export, admin lists) sent to the primary because the read replica (DATABASE_REPLICA_URL) could not be reached.',
    registers,
  });
  let inCall = 0;
  new Gauge({
    name: `${prefix}gateway_holds_outstanding`,
    help: 'Holds on credit this instance has and has not settled or given back: of admitted calls (kind=call), and reserved ahead in its stocks (kind=spare).',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      this.set({ kind: 'call' }, inCall);
      this.set({ kind: 'spare' }, meter.spareHolds());
    },
  });

  const admitted = admissions.labels({ outcome: 'admitted', reason: '' });
  const refusals = new Map<string, Counter.Internal>();
  const headers = upstream.labels({ phase: 'headers' });
  const total = upstream.labels({ phase: 'total' });
  const tokensByModel = new Map<string, { input: Counter.Internal; output: Counter.Internal }>();
  const attemptsBy = new Map<string, Counter.Internal>();
  return {
    admitted: () => {
      admitted.inc();
      inCall++;
    },
    refused: (reason) => {
      let child = refusals.get(reason);
      if (!child) refusals.set(reason, (child = admissions.labels({ outcome: 'refused', reason })));
      child.inc();
    },
    holdDone: () => {
      inCall--;
    },
    answeredFromCache: () => cacheHits.inc(),
    providerAttempt: (provider, outcome) => {
      const label = `${provider} ${outcome}`;
      let child = attemptsBy.get(label);
      if (!child) attemptsBy.set(label, (child = attempts.labels({ provider, outcome })));
      child.inc();
    },
    upstreamHeaders: (seconds) => headers.observe(seconds),
    replicaFallback: () => replicaFallbacks.inc(),
    upstreamTotal: (seconds) => total.observe(seconds),
    charged: (model, inputTokens, outputTokens, totalNanos, overHold) => {
      let byKind = tokensByModel.get(model);
      if (!byKind) tokensByModel.set(model, (byKind = { input: tokens.labels({ kind: 'input', model }), output: tokens.labels({ kind: 'output', model }) }));
      byKind.input.inc(inputTokens);
      byKind.output.inc(outputTokens);
      nanos.inc(Number(totalNanos));
      if (overHold) overruns.inc();
    },
  };
}

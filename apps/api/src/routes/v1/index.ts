import { packagePath } from '@meterway/service';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { returnStocks } from '../../domain/metering/hold-stock.js';
import { releaseExpired, settling } from '../../domain/metering/settlement.js';
import { createModelProvider } from '../../gateway/create-model-provider.js';
import { loadPricing, type Pricing } from '../../gateway/pricing.js';
import { chatCompletionRoutes } from './chat-completions.js';
import { gatewayScope } from './gateway-scope.js';

/**
 * The metering gateway under /v1: OpenAI-compatible, publishable keys, its own CORS and error
 * shape; the sweeper that releases reservations a crashed instance left behind; and, at shutdown,
 * the spare holds given back and the settlements of answers already sent.
 */
export async function registerGateway(fastify: FastifyInstance, deps: AppDeps): Promise<Pricing> {
  const { config, db } = deps;
  const pricing = deps.pricing ?? loadPricing(config.gateway.pricingFile ?? packagePath(import.meta.url, 'pricing.json'));
  const provider = deps.models ?? createModelProvider(config);
  await fastify.register(
    async (gateway) => {
      gatewayScope(gateway);
      chatCompletionRoutes(gateway, {
        db: db.db,
        pricing,
        provider,
        rateLimitPerMinute: config.gateway.rateLimitPerMinute,
        reservationTtlMs: config.gateway.reservationTtlMs,
        idleTimeoutMs: config.gateway.idleTimeoutMs,
      });
    },
    { prefix: '/v1' },
  );
  // Often enough that an expired hold is back within half its lifetime, at most every 30 seconds.
  const sweeper = setInterval(() => {
    releaseExpired(db.db, new Date()).catch((error: unknown) => fastify.log.error({ err: error }, 'releasing expired reservations failed'));
  }, Math.min(30_000, config.gateway.reservationTtlMs / 2));
  fastify.addHook('onClose', async () => {
    clearInterval(sweeper);
    // Spare holds go back, and answers already sent are charged, before the database goes.
    await Promise.all([returnStocks(db.db), settling(db.db)]);
  });
  return pricing;
}

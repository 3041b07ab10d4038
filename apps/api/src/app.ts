import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import swagger from '@fastify/swagger';
import type { Role } from '@meterway/contracts';
import { echoRequestId, fastifyOptions, packagePath, registerHealth, transportSecurityHeaders } from '@meterway/service';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps, RouteDeps } from './deps.js';
import { lagTolerantReads } from './plugins/lag-tolerant-reads.js';
import { registerAlerts } from './plugins/alerts.js';
import { registerAutoTopUp } from './plugins/auto-top-up.js';
import { registerGrantExpiry } from './plugins/grant-expiry.js';
import { createMailer } from './plugins/mail.js';
import { apiMetrics } from './plugins/metrics.js';
import { type IdentitySessions, identitySessions } from './plugins/identity-sessions.js';
import { registerProblemJson, sendFrameworkError } from './plugins/problem-json.js';
import { registerRateLimit } from './plugins/rate-limit.js';
import { requireConsoleOrigin } from './plugins/console-origin.js';
import { registerWebhooks } from './plugins/webhooks.js';
import { requireSystemAdmin, requireViewer } from './plugins/session-auth.js';
import type { FastifyZodInstance } from './plugins/zod.js';
import { adminRoutes } from './routes/admin/index.js';
import { bffRoutes } from './routes/bff/index.js';
import { loadSecret } from './domain/secrets/load-secret.js';
import { loadSecretKeyHasher } from './domain/keys/secret-key-hash.js';
import { createPaymentProvider } from './domain/payments/create-payment-provider.js';
import { configRoutes } from './routes/bff/config.js';
import { registerDeveloperApi } from './routes/developer/index.js';
import { developerSecuritySchemes } from './routes/developer/openapi.js';
import { registerSandbox } from './routes/sandbox/index.js';
import { registerGateway } from './routes/v1/index.js';
import { createMeter, type Meter } from './domain/metering/meter.js';
import { createEndUserVerifier } from './gateway/end-user-tokens.js';
import { createModelProvider } from './gateway/create-model-provider.js';
import { loadPricing, pricedModelsOf } from './gateway/pricing.js';
import { docsRoutes } from './routes/docs/docs.js';
import { stripeWebhookRoutes } from './routes/webhooks/stripe.js';

export type { AppDeps } from './deps.js';

/** The whole api as a Fastify plugin; server.ts and the tests both build it with createApp, which gives it the instance's meter. */
export async function app(fastify: FastifyInstance, deps: AppDeps): Promise<void> {
  const { config, db } = deps;
  const zod = fastify.withTypeProvider<ZodTypeProvider>();
  zod.setValidatorCompiler(validatorCompiler);
  zod.setSerializerCompiler(serializerCompiler);
  echoRequestId(fastify);
  registerProblemJson(fastify);
  transportSecurityHeaders(fastify, config.apiUrl);
  await fastify.register(swagger, {
    openapi: {
      info: { title: 'Meterway API', version: '1.0.0' },
      servers: [{ url: config.apiUrl }],
      components: { securitySchemes: developerSecuritySchemes },
    },
    transform: jsonSchemaTransform,
  });
  const sessions = deps.sessions ?? identitySessions(config.identityInternalUrl);
  const secret = await loadSecret(db.db, config.secret);
  const hashSecretKey = await loadSecretKeyHasher(db.db, config.keyHashSecret);
  const meter = fastify.meter;
  const pricing = deps.pricing ?? loadPricing(config.gateway.pricingFile ?? packagePath(import.meta.url, 'pricing.json'));
  const mailer = createMailer(fastify, deps);
  const metrics = apiMetrics(fastify, config, db, meter);
  const routeDeps: RouteDeps = {
    ...deps,
    secret,
    hashSecretKey,
    meter,
    pricing,
    mailer,
    payments: deps.payments ?? createPaymentProvider(config, secret, db.db),
    reads: lagTolerantReads(db.db, deps.replica?.db, (error) => {
      metrics.replicaFallback();
      fastify.log.warn({ err: error }, 'the read replica cannot be reached; reading from the primary');
    }),
  };

  const provider = deps.models ?? createModelProvider(config, { pricedModels: [...pricing.models.keys()], onResponseHeaders: metrics.upstreamHeaders });
  fastify.addHook('onClose', async () => provider.close?.());
  const endUsers = createEndUserVerifier({ production: config.production });
  fastify.addHook('onClose', async () => endUsers.close());
  const gateway = {
    meter,
    hashSecretKey,
    endUsers,
    pricing,
    provider,
    rateLimitPerMinute: config.gateway.rateLimitPerMinute,
    reservationTtlMs: config.gateway.reservationTtlMs,
    metrics,
  };
  registerAlerts(fastify, deps, mailer);
  registerAutoTopUp(fastify, deps, { mailer, payments: routeDeps.payments });
  registerGrantExpiry(fastify, deps);
  registerWebhooks(fastify, deps);
  // The gateway answers scripts and browser apps with JSON: helmet's page headers mean nothing
  // there and its hooks would run on every call, so it covers every other route only.
  // (nosniff, and HSTS over https, come from transportSecurityHeaders on every route.)
  await registerGateway(fastify, gateway, config);
  await zod.register(async (site: FastifyZodInstance) => {
    await site.register(helmet, { contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'same-site' }, strictTransportSecurity: false });
    await siteRoutes(site, routeDeps, sessions);
  });
}

/** Every route but the gateway's: health, the OpenAPI document, the developer API, the docs, Stripe's webhooks and what the console calls. */
async function siteRoutes(site: FastifyZodInstance, routeDeps: RouteDeps, sessions: IdentitySessions): Promise<void> {
  const { config, db, pricing } = routeDeps;
  registerHealth(site, db.ping);
  site.get('/openapi.json', { schema: { hide: true } }, async () => site.swagger());
  await registerDeveloperApi(site, routeDeps);
  // The docs show what is charged: the price list with the margin, per 1M tokens.
  const pricedModels = pricedModelsOf(pricing);
  docsRoutes(site, { apiUrl: config.apiUrl, consoleUrl: config.consoleUrl, models: () => pricedModels, priceListVersion: pricing.version });
  if (routeDeps.payments.name === 'stripe') await stripeWebhookRoutes(site, routeDeps);
  // What the console calls: its origin only, with cookies. The payment config and the sandbox's
  // checkout are public; the BFF and the admin routes need a signed-in viewer.
  await site.register(async (fromConsole: FastifyZodInstance) => {
    await fromConsole.register(cors, {
      origin: [new URL(config.consoleUrl).origin],
      credentials: true,
      methods: ['GET', 'POST', 'PUT', 'DELETE'],
      exposedHeaders: ['Content-Disposition', 'X-Total-Count'],
    });
    configRoutes(fromConsole, routeDeps);
    if (routeDeps.payments.name === 'sandbox') await registerSandbox(fromConsole, routeDeps);
    await fromConsole.register(async (console: FastifyZodInstance) => {
      requireConsoleOrigin(console, new URL(config.consoleUrl).origin);
      requireViewer(console, { db: db.db, sessions, systemAdminEmails: config.systemAdminEmails });
      await registerRateLimit(console);
      bffRoutes(console, routeDeps);
      await console.register(async (admin: FastifyZodInstance) => {
        requireSystemAdmin(admin);
        adminRoutes(admin, routeDeps);
      });
    });
  });
}

/** A registered route; `roles` when it names the roles it allows (config.roles). */
export type RouteEntry = { method: string; url: string; roles?: readonly Role[] };

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route the app registered with the roles it allows, for the authorisation matrix and the docs. */
    routeTable: RouteEntry[];
    /** This instance's metering state (domain/metering/meter.ts), closed with the app. */
    meter: Meter;
  }
}

export async function createApp(deps: AppDeps): Promise<FastifyInstance> {
  const fastify = Fastify({
    ...fastifyOptions(deps.config.logLevel, deps.config.trustProxy, deps.logStream),
    bodyLimit: 256 * 1024,
    frameworkErrors: sendFrameworkError,
  });
  const routeTable: RouteEntry[] = [];
  fastify.decorate('routeTable', routeTable);
  fastify.addHook('onRoute', (route) => {
    const roles = route.config?.roles;
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD' && method !== 'OPTIONS') routeTable.push({ method, url: route.url, ...(roles ? { roles } : {}) });
    }
  });
  const meter = createMeter({
    db: deps.db.db,
    reservationTtlMs: deps.config.gateway.reservationTtlMs,
    onSweepError: (error) => fastify.log.error({ err: error }, 'releasing expired reservations failed'),
  });
  fastify.decorate('meter', meter);
  // After the server stopped taking calls: answers already sent are charged before the database goes.
  fastify.addHook('onClose', () => meter.close());
  await fastify.register(app, deps);
  return fastify;
}

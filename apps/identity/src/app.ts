import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import formbody from '@fastify/formbody';
import {
  devOutbox,
  devOutboxRoutes,
  echoRequestId,
  fastifyOptions,
  type LogStream,
  packagePath,
  refuseUnstorableText,
  registerHealth,
  smtpMailer,
  transportSecurityHeaders,
} from '@meterway/service';
import Fastify, { type FastifyInstance } from 'fastify';
import type { IdentityContext } from './context.js';
import type { IdentityDb } from './db/index.js';
import { type Clock, systemClock } from './domain/clock.js';
import { loadSecret } from './domain/secret.js';
import type { IdentityConfig } from './env.js';
import { countedMailer } from './mail/counted-mailer.js';
import type { Mailer } from './mail/mailer.js';
import { identityMetrics } from './plugins/metrics.js';
import { registerKratosErrors, sendFrameworkError } from './plugins/kratos-errors.js';
import { errors } from './flows/errors.js';
import { hostedUiRoutes } from './routes/hosted-ui.js';
import { registrationRoutes } from './routes/self-service/registration.js';
import { verificationRoutes } from './routes/self-service/verification.js';
import { loginRoutes } from './routes/self-service/login.js';
import { logoutRoutes } from './routes/self-service/logout.js';
import { recoveryRoutes } from './routes/self-service/recovery.js';
import { settingsRoutes } from './routes/self-service/settings.js';
import { sessionRoutes } from './routes/sessions/sessions.js';
import { kratosHealthRoutes } from './routes/kratos-health.js';
import { limitFlowCreation } from './http/flow-creation-limit.js';
import { createSweeper } from './jobs/sweeper.js';
import type { SweepCounts } from './domain/sweep-expired.js';
import { type CourierAttempt, createCourier } from './mail/courier.js';

export type AppDeps = {
  config: IdentityConfig;
  db: IdentityDb;
  clock?: Clock;
  mailer?: Mailer;
  /** Where the log's lines go instead of stdout (a test that reads them). */
  logStream?: LogStream;
  /** How often expired rows are deleted (every 10 minutes unless a test says otherwise), and who hears of each sweep. */
  sweep?: { intervalMs?: number; onSweep?: (counts: SweepCounts) => void };
  /** How often the courier looks for due retries (every 5 s unless a test says otherwise), and who hears of each attempt. */
  courier?: { pollIntervalMs?: number; onAttempt?: (attempt: CourierAttempt) => void };
};

/** The identity service as a Fastify plugin; server.ts and the tests both build it with createApp. */
export async function app(fastify: FastifyInstance, deps: AppDeps): Promise<void> {
  const { config, db } = deps;
  echoRequestId(fastify);
  registerKratosErrors(fastify);
  refuseUnstorableText(fastify, () => errors.badRequest('The request contains a NUL character (U+0000) or text that is not valid Unicode.'));
  transportSecurityHeaders(fastify, config.identityUrl);
  registerHealth(fastify, db.ping);
  kratosHealthRoutes(fastify, db.ping);
  const metrics = identityMetrics(fastify, config, db);
  await fastify.register(cookie);
  await fastify.register(formbody);
  // Credentialed CORS for the console's origin and the configured UIs' (an integrator's own app);
  // the SDK reads Ory-Error-Id on failures.
  await fastify.register(cors, {
    origin: config.allowedReturnOrigins,
    credentials: true,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: ['ory-error-id', 'x-request-id'],
  });

  const outbox = deps.mailer ? undefined : config.mail.smtpUrl ? undefined : devOutbox(fastify.log);
  const transport = countedMailer(deps.mailer ?? outbox ?? smtpMailer(config.mail.smtpUrl ?? '', config.mail.from), metrics);
  const clock = deps.clock ?? systemClock;
  // The dev outbox is memory and cannot be down, so it is written at once; a real transport is fed by the courier.
  const courier = outbox
    ? undefined
    : createCourier({
        db: db.db,
        transport,
        clock,
        log: fastify.log,
        pollIntervalMs: deps.courier?.pollIntervalMs ?? 5_000,
        ...(deps.courier?.onAttempt ? { onAttempt: deps.courier.onAttempt } : {}),
      });
  if (courier) {
    fastify.addHook('onReady', async () => {
      courier.start();
      void courier.drain();
    });
    fastify.addHook('onClose', () => courier.close());
  }
  const mailer = courier ?? transport;
  const ctx: IdentityContext = { config, db: db.db, clock, mailer, metrics, secret: await loadSecret(db.db, config.secret) };

  if (outbox && !config.production) devOutboxRoutes(fastify, outbox);
  limitFlowCreation(fastify, ctx);
  const sweeper = createSweeper({
    db: db.db,
    clock: ctx.clock,
    log: fastify.log,
    sessionIdleTimeoutMs: config.sessionIdleTimeoutMs,
    intervalMs: deps.sweep?.intervalMs ?? 10 * 60_000,
    ...(deps.sweep?.onSweep ? { onSweep: deps.sweep.onSweep } : {}),
  });
  fastify.addHook('onReady', async () => sweeper.start());
  fastify.addHook('onClose', () => sweeper.close());
  await registrationRoutes(fastify, ctx);
  await verificationRoutes(fastify, ctx);
  await loginRoutes(fastify, ctx);
  await logoutRoutes(fastify, ctx);
  await recoveryRoutes(fastify, ctx);
  await settingsRoutes(fastify, ctx);
  await sessionRoutes(fastify, ctx);
  await hostedUiRoutes(fastify, { uiDir: packagePath(import.meta.url, 'dist/ui'), consoleUrl: config.consoleUrl });
}

export async function createApp(deps: AppDeps): Promise<FastifyInstance> {
  const fastify = Fastify({
    ...fastifyOptions(deps.config.logLevel, deps.config.trustProxy, deps.logStream),
    bodyLimit: 64 * 1024,
    frameworkErrors: sendFrameworkError,
  });
  await fastify.register(app, deps);
  return fastify;
}

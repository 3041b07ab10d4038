import { booleanFlag, commaList, httpUrl, parseEnv, postgresUrl, publicUrls, stackEnvShape, trustProxySetting } from '@meterway/service';
import { z } from 'zod';

/** The api's environment; README.md documents every name. */
const apiEnv = z
  .object({
    ...stackEnvShape,
    SYSTEM_ADMIN_EMAILS: commaList,
    DATABASE_REPLICA_URL: postgresUrl.optional(),
    IDENTITY_INTERNAL_URL: httpUrl.optional(),
    API_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    KEY_HASH_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    UPSTREAM_BASE_URL: httpUrl.optional(),
    UPSTREAM_API_KEY: z.string().optional(),
    UPSTREAM_TIMEOUT_MS: z.coerce.number({ error: 'must be a number' }).int().min(1000, 'must be at least 1000').default(60_000),
    UPSTREAM_IDLE_TIMEOUT_MS: z.coerce.number({ error: 'must be a number' }).int().min(500, 'must be at least 500').default(30_000),
    GATEWAY_RATE_LIMIT_PER_MINUTE: z.coerce.number({ error: 'must be a number' }).int().min(1, 'must be at least 1').default(600),
    RESERVATION_TTL_MS: z.coerce
      .number({ error: 'must be a number' })
      .int()
      .min(1000, 'must be at least 1000')
      .default(10 * 60 * 1000),
    PRICING_FILE: z.string().optional(),
    PROVIDERS_FILE: z.string().optional(),
    STRIPE_SECRET_KEY: z.string().optional(),
    STRIPE_WEBHOOK_SECRET: z.string().optional(),
    STRIPE_PUBLISHABLE_KEY: z.string().optional(),
    STRIPE_AUTOMATIC_TAX: booleanFlag.default(false),
    SANDBOX_TAX_RATE: z.coerce.number({ error: 'must be a number' }).min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').default(0),
    /** `allow`: run the sandbox's payments in production (it credits any test card). */
    SANDBOX_PAYMENTS: z.enum(['allow'], { error: 'must be allow, or unset' }).optional(),
    SANDBOX_CHECKOUT_TTL_MINUTES: z.coerce.number({ error: 'must be a number' }).int('must be whole minutes').min(1, 'must be at least 1').default(30),
    SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
    MAIL_FROM: z.string().default('Meterway <no-reply@meterway.local>'),
    ALERT_CHECK_INTERVAL_MS: z.coerce.number({ error: 'must be a number' }).int().min(100, 'must be at least 100').default(5_000),
    AUTO_TOP_UP_INTERVAL_MS: z.coerce.number({ error: 'must be a number' }).int().min(100, 'must be at least 100').default(3_000),
    GRANT_EXPIRY_INTERVAL_MS: z.coerce.number({ error: 'must be a number' }).int().min(100, 'must be at least 100').default(60_000),
    WEBHOOK_INTERVAL_MS: z.coerce.number({ error: 'must be a number' }).int().min(100, 'must be at least 100').default(2_000),
    TRUST_PROXY: trustProxySetting,
  })
  .superRefine((env, context) => {
    // A hold that expired while its call still waits for the provider would be swept, and the call go
    // unpaid: a call may run for half its hold's lifetime, and must be able to wait out the timeout.
    if (env.RESERVATION_TTL_MS < 2 * env.UPSTREAM_TIMEOUT_MS) {
      context.addIssue({ code: 'custom', path: ['RESERVATION_TTL_MS'], message: 'must be at least twice UPSTREAM_TIMEOUT_MS' });
    }
    if (env.DATABASE_REPLICA_URL && !env.DATABASE_URL) {
      context.addIssue({ code: 'custom', path: ['DATABASE_REPLICA_URL'], message: 'needs DATABASE_URL, the Postgres it replicates' });
    }
    if (env.NODE_ENV === 'production' && !env.SMTP_URL) {
      context.addIssue({ code: 'custom', path: ['SMTP_URL'], message: 'is required in production (the dev outbox is for development only)' });
    }
    // Without Stripe, payments run in the sandbox, which credits any test card: free credit in production.
    if (env.NODE_ENV === 'production' && !env.STRIPE_SECRET_KEY && env.SANDBOX_PAYMENTS !== 'allow') {
      context.addIssue({
        code: 'custom',
        path: ['STRIPE_SECRET_KEY'],
        message:
          'is required in production, with STRIPE_WEBHOOK_SECRET and STRIPE_PUBLISHABLE_KEY: without them payments run in the sandbox, which credits any test card (set SANDBOX_PAYMENTS=allow to run it anyway)',
      });
    }
    // Half a Stripe configuration would take money and never credit it: refuse to boot.
    if (!env.STRIPE_SECRET_KEY) return;
    for (const name of ['STRIPE_WEBHOOK_SECRET', 'STRIPE_PUBLISHABLE_KEY'] as const) {
      if (!env[name]) context.addIssue({ code: 'custom', path: [name], message: 'is required when STRIPE_SECRET_KEY is set' });
    }
  });

export type ApiConfig = ReturnType<typeof loadApiConfig>;

export function loadApiConfig(source: NodeJS.ProcessEnv = process.env) {
  const env = parseEnv(apiEnv, source);
  return {
    host: env.HOST,
    port: env.API_PORT,
    production: env.NODE_ENV === 'production',
    logLevel: env.LOG_LEVEL,
    /** Whose X-Forwarded-For decides `request.ip` (the per-address limits' key): nobody's unless set. */
    trustProxy: env.TRUST_PROXY,
    dataDir: env.DATA_DIR,
    databaseUrl: env.DATABASE_URL,
    /** A streaming replica of DATABASE_URL for the lag-tolerant reads (plugins/lag-tolerant-reads.ts). */
    databaseReplicaUrl: env.DATABASE_REPLICA_URL,
    ...publicUrls(env),
    systemAdminEmails: env.SYSTEM_ADMIN_EMAILS.map((email) => email.toLowerCase()),
    /** Where the api asks identity who a cookie belongs to (a private address in production). */
    identityInternalUrl: env.IDENTITY_INTERNAL_URL ?? publicUrls(env).identityUrl,
    secret: env.API_SECRET,
    /** The key of secret keys' stored hashes; unset: one made once per database. */
    keyHashSecret: env.KEY_HASH_SECRET,
    metricsToken: env.METRICS_TOKEN,
    upstream: env.UPSTREAM_BASE_URL ? { baseUrl: env.UPSTREAM_BASE_URL, apiKey: env.UPSTREAM_API_KEY } : undefined,
    gateway: {
      timeoutMs: env.UPSTREAM_TIMEOUT_MS,
      idleTimeoutMs: env.UPSTREAM_IDLE_TIMEOUT_MS,
      rateLimitPerMinute: env.GATEWAY_RATE_LIMIT_PER_MINUTE,
      reservationTtlMs: env.RESERVATION_TTL_MS,
      pricingFile: env.PRICING_FILE,
      providersFile: env.PROVIDERS_FILE,
      /** Where the providers file's `apiKeyEnv` names are read: the environment the api was started with. */
      providerEnv: (name: string): string | undefined => source[name] || undefined,
    },
    stripe: env.STRIPE_SECRET_KEY
      ? {
          secretKey: env.STRIPE_SECRET_KEY,
          // A pasted secret often ends in a newline, which would fail every signature check.
          webhookSecret: (env.STRIPE_WEBHOOK_SECRET ?? '').trim(),
          publishableKey: env.STRIPE_PUBLISHABLE_KEY ?? '',
          automaticTax: env.STRIPE_AUTOMATIC_TAX,
        }
      : undefined,
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    alerts: { checkIntervalMs: env.ALERT_CHECK_INTERVAL_MS },
    autoTopUp: { intervalMs: env.AUTO_TOP_UP_INTERVAL_MS },
    /** How often each instance takes expired promotional grants' remainders out of the balances. */
    grants: { expiryIntervalMs: env.GRANT_EXPIRY_INTERVAL_MS },
    /** How often each instance sends the webhook deliveries that are due. */
    webhooks: { intervalMs: env.WEBHOOK_INTERVAL_MS },
    sandbox: { taxRate: env.SANDBOX_TAX_RATE, checkoutTtlMinutes: env.SANDBOX_CHECKOUT_TTL_MINUTES },
  };
}

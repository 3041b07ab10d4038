import { booleanFlag, httpUrl, parseEnv, postgresUrl, publicUrls, stackEnvShape, trustProxySetting } from '@meterway/service';
import { z } from 'zod';

/** Identity's environment; README.md documents every name. */
const identityEnv = z
  .object({
    ...stackEnvShape,
    IDENTITY_DATABASE_URL: postgresUrl.optional(),
    IDENTITY_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
    MAIL_FROM: z.string().default('Meterway <no-reply@meterway.local>'),
    COOKIE_DOMAIN: z.string().optional(),
    COOKIE_SECURE: booleanFlag.optional(),
    // ASVS 3.3.2 / NIST 800-63B AAL2: 30 minutes without use ends a session (docs/security.md).
    SESSION_IDLE_TIMEOUT: z.coerce
      .number({ error: 'must be a number of minutes' })
      .int('must be whole minutes')
      .min(2, 'must be at least 2 minutes')
      .default(30),
    IDENTITY_RATE_LIMIT_MULTIPLIER: z.coerce.number({ error: 'must be a number' }).positive('must be greater than 0').default(1),
    TRUST_PROXY: trustProxySetting,
    // Kratos' `selfservice.flows.*.ui_url` and `selfservice.default_browser_return_url`.
    IDENTITY_LOGIN_UI_URL: httpUrl.optional(),
    IDENTITY_REGISTRATION_UI_URL: httpUrl.optional(),
    IDENTITY_VERIFICATION_UI_URL: httpUrl.optional(),
    IDENTITY_RECOVERY_UI_URL: httpUrl.optional(),
    IDENTITY_SETTINGS_UI_URL: httpUrl.optional(),
    IDENTITY_DEFAULT_RETURN_URL: httpUrl.optional(),
  })
  .superRefine((env, context) => {
    if (env.NODE_ENV === 'production' && !env.SMTP_URL) {
      context.addIssue({ code: 'custom', path: ['SMTP_URL'], message: 'is required in production (the dev outbox is for development only)' });
    }
  });

export type IdentityConfig = ReturnType<typeof loadIdentityConfig>;

export function loadIdentityConfig(source: NodeJS.ProcessEnv = process.env) {
  const env = parseEnv(identityEnv, source);
  const urls = publicUrls(env);
  const ui = {
    login: env.IDENTITY_LOGIN_UI_URL ?? `${urls.consoleUrl}/login`,
    // Kratos sends every login flow to the one login UI; only the default setup sends the second
    // factor to identity's hosted page, because the console's login screen has no second factor.
    secondFactor: env.IDENTITY_LOGIN_UI_URL ?? `${urls.identityUrl}/ui/login`,
    registration: env.IDENTITY_REGISTRATION_UI_URL ?? `${urls.consoleUrl}/signup`,
    verification: env.IDENTITY_VERIFICATION_UI_URL ?? `${urls.consoleUrl}/verify-email`,
    recovery: env.IDENTITY_RECOVERY_UI_URL ?? `${urls.consoleUrl}/recover-password`,
    settings: env.IDENTITY_SETTINGS_UI_URL ?? `${urls.identityUrl}/ui/settings`,
    afterLogin: env.IDENTITY_DEFAULT_RETURN_URL ?? `${urls.consoleUrl}/dashboard`,
    afterLogout: env.IDENTITY_DEFAULT_RETURN_URL ?? `${urls.consoleUrl}/login`,
  };
  return {
    host: env.HOST,
    port: env.IDENTITY_PORT,
    logLevel: env.LOG_LEVEL,
    /** Whose X-Forwarded-For decides `request.ip` (the per-address limits' key): nobody's unless set. */
    trustProxy: env.TRUST_PROXY,
    production: env.NODE_ENV === 'production',
    dataDir: env.DATA_DIR,
    databaseUrl: env.IDENTITY_DATABASE_URL ?? env.DATABASE_URL,
    secret: env.IDENTITY_SECRET,
    metricsToken: env.METRICS_TOKEN,
    ...urls,
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    cookie: { domain: env.COOKIE_DOMAIN, secure: env.COOKIE_SECURE ?? urls.identityUrl.startsWith('https://') },
    /** Scales every attempt limit (many users behind one NAT, or a load test). */
    rateLimitMultiplier: env.IDENTITY_RATE_LIMIT_MULTIPLIER,
    /** A session not used for this long ends, within its 24-hour lifespan. */
    sessionIdleTimeoutMs: env.SESSION_IDLE_TIMEOUT * 60_000,
    /** Where browsers are sent for each flow: the console's screens and identity's hosted pages unless configured. */
    ui,
    /** Origins a `return_to` may point at, and that may call identity with credentials. */
    allowedReturnOrigins: [...new Set([urls.consoleUrl, urls.identityUrl, ...Object.values(ui)].map((url) => new URL(url).origin))],
  };
}

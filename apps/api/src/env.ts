import { commaList, httpUrl, parseEnv, publicUrls, stackEnvShape } from '@meterway/service';
import { z } from 'zod';

/** The api's environment; README.md documents every name. */
const apiEnv = z.object({
  ...stackEnvShape,
  SYSTEM_ADMIN_EMAILS: commaList,
  IDENTITY_INTERNAL_URL: httpUrl.optional(),
  API_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  UPSTREAM_BASE_URL: httpUrl.optional(),
  UPSTREAM_API_KEY: z.string().optional(),
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  STRIPE_PUBLISHABLE_KEY: z.string().optional(),
});

export type ApiConfig = ReturnType<typeof loadApiConfig>;

export function loadApiConfig(source: NodeJS.ProcessEnv = process.env) {
  const env = parseEnv(apiEnv, source);
  return {
    host: env.HOST,
    port: env.API_PORT,
    logLevel: env.LOG_LEVEL,
    dataDir: env.DATA_DIR,
    databaseUrl: env.DATABASE_URL,
    ...publicUrls(env),
    systemAdminEmails: env.SYSTEM_ADMIN_EMAILS.map((email) => email.toLowerCase()),
    /** Where the api asks identity who a cookie belongs to (a private address in production). */
    identityInternalUrl: env.IDENTITY_INTERNAL_URL ?? publicUrls(env).identityUrl,
    secret: env.API_SECRET,
    upstream: env.UPSTREAM_BASE_URL ? { baseUrl: env.UPSTREAM_BASE_URL, apiKey: env.UPSTREAM_API_KEY } : undefined,
    stripe: env.STRIPE_SECRET_KEY
      ? {
          secretKey: env.STRIPE_SECRET_KEY,
          webhookSecret: env.STRIPE_WEBHOOK_SECRET,
          publishableKey: env.STRIPE_PUBLISHABLE_KEY,
        }
      : undefined,
  };
}

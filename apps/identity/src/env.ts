import { booleanFlag, parseEnv, publicUrls, stackEnvShape } from '@meterway/service';
import { z } from 'zod';

/** Identity's environment; README.md documents every name. */
const identityEnv = z.object({
  ...stackEnvShape,
  IDENTITY_DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z.string().default('Meterway <no-reply@meterway.local>'),
  COOKIE_DOMAIN: z.string().optional(),
  COOKIE_SECURE: booleanFlag.optional(),
});

export type IdentityConfig = ReturnType<typeof loadIdentityConfig>;

export function loadIdentityConfig(source: NodeJS.ProcessEnv = process.env) {
  const env = parseEnv(identityEnv, source);
  const urls = publicUrls(env);
  return {
    host: env.HOST,
    port: env.IDENTITY_PORT,
    logLevel: env.LOG_LEVEL,
    production: env.NODE_ENV === 'production',
    dataDir: env.DATA_DIR,
    databaseUrl: env.IDENTITY_DATABASE_URL ?? env.DATABASE_URL,
    ...urls,
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    cookie: { domain: env.COOKIE_DOMAIN, secure: env.COOKIE_SECURE ?? urls.identityUrl.startsWith('https://') },
  };
}

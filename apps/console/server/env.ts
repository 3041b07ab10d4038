import { httpUrl, parseEnv, publicUrls, stackEnvShape } from '@meterway/service';
import { z } from 'zod';
import { type RuntimeConfig, runtimeConfigSchema } from '../src/config/runtime-config';

/** The console server's environment; the stack's names plus where the API docs live. */
const consoleEnv = z.object({
  ...stackEnvShape,
  DOCS_URL: httpUrl.optional(),
});

export type ConsoleConfig = ReturnType<typeof loadConsoleConfig>;

export function loadConsoleConfig(source: NodeJS.ProcessEnv = process.env) {
  const env = parseEnv(consoleEnv, source);
  const { consoleUrl, apiUrl, identityUrl } = publicUrls(env);
  const runtimeConfig: RuntimeConfig = runtimeConfigSchema.parse({
    apiUrls: { [new URL(consoleUrl).origin]: apiUrl },
    identityUrl,
    docsUrl: env.DOCS_URL ?? `${apiUrl}/docs`,
  });
  return {
    host: env.HOST,
    port: env.CONSOLE_PORT,
    logLevel: env.LOG_LEVEL,
    runtimeConfig,
    metrics: { token: env.METRICS_TOKEN, production: env.NODE_ENV === 'production' },
  };
}

/** The body of `/config.json` for this environment (the server's and `vite`'s). */
export function runtimeConfigFromEnv(source: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  return loadConsoleConfig(source).runtimeConfig;
}

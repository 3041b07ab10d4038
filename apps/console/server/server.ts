import { packagePath, serve } from '@meterway/service';
import { createConsoleServer } from './app';
import { loadConsoleConfig } from './env';

await serve({
  build: async () => {
    const config = loadConsoleConfig();
    const app = await createConsoleServer({
      runtimeConfig: config.runtimeConfig,
      publicDir: packagePath(import.meta.url, 'dist/public'),
      logLevel: config.logLevel,
      metrics: config.metrics,
    });
    return { app, host: config.host, port: config.port };
  },
});

import { createDb } from '@meterway/db';
import { serve } from '@meterway/service';
import { createApp } from './app.js';
import { migrations, schema } from './db/index.js';
import { loadIdentityConfig } from './env.js';

await serve({
  build: async () => {
    const config = loadIdentityConfig();
    const db = await createDb({ schema, service: 'identity', dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    await db.migrate(migrations);
    const app = await createApp({ config, db });
    return { app, host: config.host, port: config.port, close: () => db.close() };
  },
});

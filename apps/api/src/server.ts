import { createDb } from '@meterway/db';
import { serve } from '@meterway/service';
import { createApp } from './app.js';
import { migrations, schema } from './db/index.js';
import { loadApiConfig } from './env.js';
import { startOperatorSocket } from './operator/operator-server.js';
import { operatorSocketPath } from './operator/socket-path.js';

await serve({
  build: async () => {
    const config = loadApiConfig();
    const db = await createDb({ schema, service: 'api', dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    await db.migrate(migrations);
    const replica = config.databaseReplicaUrl
      ? await createDb({ schema, service: 'api', dataDir: config.dataDir, databaseUrl: config.databaseReplicaUrl })
      : undefined;
    const app = await createApp({ config, db, ...(replica ? { replica } : {}) });
    // PGlite admits this process only, so `npm run admin` reaches the database through it; on
    // Postgres the CLI connects by itself and no socket is needed.
    const operator =
      db.kind === 'pglite'
        ? await startOperatorSocket({ db: db.db, logLevel: config.logLevel, socketPath: operatorSocketPath(config.dataDir), log: app.log })
        : undefined;
    const close = async () => {
      await operator?.close();
      await replica?.close();
      await db.close();
    };
    return { app, host: config.host, port: config.port, close };
  },
});

// The api for bench/usage/csv-export.ts, in a process of its own so that its RSS is the api's
// alone: built with createApp as server.ts builds it (createDb's pool) on the database in argv[2],
// with a fixed session in place of identity: the cookie `bench=<identity id>` signs in as that
// identity. Reports its port to the parent.
import type { AddressInfo } from 'node:net';
import { createDb } from '@meterway/db';
import { createApp } from '../../apps/api/src/app.js';
import { schema } from '../../apps/api/src/db/index.js';
import { loadApiConfig } from '../../apps/api/src/env.js';
import type { IdentitySessions } from '../../apps/api/src/plugins/identity-sessions.js';

const databaseUrl = process.argv[2];
if (!databaseUrl) throw new Error('usage: csv-export-server.ts <database url>');

const sessions: IdentitySessions = {
  whoami: async (cookie) => {
    const identityId = /bench=([\w-]+)/.exec(cookie)?.[1];
    return identityId ? { outcome: 'session', session: { identityId, email: 'bench-1@example.com', verified: true } } : { outcome: 'no-session' };
  },
  cacheSize: () => 0,
};

const db = await createDb({ schema, databaseUrl, dataDir: '', service: 'api' });
const app = await createApp({ config: loadApiConfig({ LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl }), db, sessions });
await app.listen({ host: '127.0.0.1', port: 0 });
process.send?.({ port: (app.server.address() as AddressInfo).port });
process.on('disconnect', () => {
  void app.close().then(() => db.close());
});

import { createDb } from '@meterway/db';
import { serve } from '@meterway/service';
import Stripe from 'stripe';
import { createApp } from '../app.js';
import { migrations, schema } from '../db/index.js';
import { stripeProvider } from '../domain/payments/stripe-provider.js';
import { loadApiConfig } from '../env.js';

/**
 * The api process as server.ts runs it on Postgres, with one difference: with SOAK_STRIPE_URL set,
 * Stripe is the local fake at that address (the SDK takes its host in code, not from the
 * environment). The soak and fault suites start, kill and restart this.
 */
await serve({
  build: async () => {
    const config = loadApiConfig();
    const db = await createDb({ schema, service: 'api', dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    await db.migrate(migrations);
    const fakeStripe = process.env.SOAK_STRIPE_URL ? new URL(process.env.SOAK_STRIPE_URL) : undefined;
    const payments =
      config.stripe && fakeStripe
        ? stripeProvider({
            stripe: new Stripe(config.stripe.secretKey, {
              host: fakeStripe.hostname,
              port: Number(fakeStripe.port),
              protocol: 'http',
              maxNetworkRetries: 2,
              telemetry: false,
            }),
            db: db.db,
            publishableKey: config.stripe.publishableKey,
            webhookSecret: config.stripe.webhookSecret,
            automaticTax: config.stripe.automaticTax,
          })
        : undefined;
    const app = await createApp({ config, db, ...(payments ? { payments } : {}) });
    return { app, host: config.host, port: config.port, close: () => db.close() };
  },
});

import type { LogStream, Mailer } from '@meterway/service';
import type { ApiDb } from './db/index.js';
import type { LagTolerantReads } from './plugins/lag-tolerant-reads.js';
import type { ApiConfig } from './env.js';
import type { SecretKeyHasher } from './domain/keys/secret-key-hash.js';
import type { Meter } from './domain/metering/meter.js';
import type { PaymentProvider } from './domain/payments/payment-provider.js';
import type { Pricing } from './gateway/pricing.js';
import type { ModelProvider } from './gateway/providers/model-provider.js';
import type { IdentitySessions } from './plugins/identity-sessions.js';

/** What the app is built from (server.ts and the tests pass these). */
/** Tests may inject the parts that reach outside: identity, the payment provider, the model provider, the mailer. */
export type AppDeps = {
  config: ApiConfig;
  db: ApiDb;
  /** A streaming replica of `db` (DATABASE_REPLICA_URL), for the reads that tolerate lag; none: they go to `db`. */
  replica?: ApiDb;
  sessions?: IdentitySessions;
  payments?: PaymentProvider;
  models?: ModelProvider;
  pricing?: Pricing;
  mailer?: Mailer;
  /** Where the log's lines go instead of stdout (a test that reads them). */
  logStream?: LogStream;
  /** Called when a round of the alert poller has finished, so a test can wait for rounds instead of sleeping. */
  onAlertRound?: () => void;
  /** Called when a round of the auto top-up worker has finished (charges sent, failures mailed). */
  onAutoTopUpRound?: () => void;
  /** Called when a round of the webhook delivery worker has finished. */
  onWebhookRound?: () => void;
};

/** What route modules receive: the deps plus what the app resolved at boot. */
export type RouteDeps = AppDeps & {
  secret: string;
  /** How secret keys are stored (their keyed hash). */
  hashSecretKey: SecretKeyHasher;
  payments: PaymentProvider;
  meter: Meter;
  pricing: Pricing;
  mailer: Mailer;
  /** Where the lag-tolerant reads go (plugins/lag-tolerant-reads.ts). */
  reads: LagTolerantReads;
};

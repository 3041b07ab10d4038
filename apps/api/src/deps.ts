import type { ApiDb } from './db/index.js';
import type { ApiConfig } from './env.js';
import type { PaymentProvider } from './domain/payments/payment-provider.js';
import type { IdentitySessions } from './plugins/identity-sessions.js';

/** What the app is built from (server.ts and the tests pass these). */
export type AppDeps = { config: ApiConfig; db: ApiDb; sessions?: IdentitySessions; payments?: PaymentProvider };

/** What route modules receive: the deps plus what the app resolved at boot. */
export type RouteDeps = AppDeps & { secret: string; payments: PaymentProvider };

import type { IdentityDb } from './db/index.js';
import type { Clock } from './domain/clock.js';
import type { IdentityConfig } from './env.js';
import type { Mailer } from './mail/mailer.js';
import type { IdentityMetrics } from './plugins/metrics.js';

/** What every route needs, made once at boot (tests inject their own clock and mailer). */
export type IdentityContext = {
  config: IdentityConfig;
  db: IdentityDb['db'];
  clock: Clock;
  mailer: Mailer;
  /** This instance's counters (logins, registrations, mails), exposed at `/metrics`. */
  metrics: IdentityMetrics;
  /** HMAC key for one-time codes and logout tokens. */
  secret: string;
};

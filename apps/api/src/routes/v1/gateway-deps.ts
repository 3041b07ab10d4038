import type { Database } from '@meterway/db';
import type { Pricing } from '../../gateway/pricing.js';
import type { ModelProvider } from '../../gateway/providers/model-provider.js';

/** What the gateway's routes are built with. */
export type GatewayDeps = {
  db: Database;
  pricing: Pricing;
  provider: ModelProvider;
  rateLimitPerMinute: number;
  reservationTtlMs: number;
  /** How long a streaming client may take nothing before it is cut off (UPSTREAM_IDLE_TIMEOUT_MS). */
  idleTimeoutMs: number;
};

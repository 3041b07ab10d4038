import type { SecretKeyHasher } from '../domain/keys/secret-key-hash.js';
import type { Meter } from '../domain/metering/meter.js';
import type { EndUserVerifier } from './end-user-tokens.js';
import type { Pricing } from './pricing.js';
import type { ModelProvider } from './providers/model-provider.js';

/** What the gateway's calls are made with: this instance's meter, its verifier of end-user tokens, the price list, the provider and the limits. */
export type Gateway = {
  meter: Meter;
  /** How secret keys are stored: the gateway looks a presented secret key up by its hash. */
  hashSecretKey: SecretKeyHasher;
  endUsers: EndUserVerifier;
  pricing: Pricing;
  provider: ModelProvider;
  rateLimitPerMinute: number;
  reservationTtlMs: number;
  metrics: GatewayMetrics;
};

/** What the gateway counts per call (plugins/metrics.ts exposes it at /metrics); each is a cheap, synchronous bump. */
export type GatewayMetrics = {
  /** A call was admitted: its hold is this instance's until `holdDone`. */
  admitted: () => void;
  /** Refused before anything was held; `reason` is the OpenAI error code answered. */
  refused: (reason: string) => void;
  /** An admitted call's hold was settled or given back (or its settlement failed for good). */
  holdDone: () => void;
  /** A call was answered from its key's response cache: nothing held, nothing charged. */
  answeredFromCache: () => void;
  /** A try at one provider for a call routed to several: it served the call, failed, or was skipped (its circuit breaker open). */
  providerAttempt: (provider: string, outcome: 'served' | 'failed' | 'skipped') => void;
  /** From sending the call to the end of the provider's answer. */
  upstreamTotal: (seconds: number) => void;
  /** A settled call: what it was charged, and whether that exceeded its hold. */
  charged: (model: string, inputTokens: number, outputTokens: number, totalNanos: bigint, overHold: boolean) => void;
};

/** Who a call comes from, as the transport received it: all that is checked before its body is read. */
export type CallHeaders = {
  authorization: string | undefined;
  origin: string | undefined;
  /** The client as per-address limits count it (clientOf the address the transport resolved: behind TRUST_PROXY, the forwarded one). */
  client: string;
  /** The Meterway-User-Token header: the signed-in end user's token, for a key that requires one. */
  endUserToken: string | undefined;
  /** The Meterway-End-User header: the end user a secret key's server names (ignored with a publishable key, where anyone could forge it). */
  endUserName: string | undefined;
  log: CallLog;
};

/** A call as the transport received it. */
export type CallRequest = CallHeaders & { body: unknown };

/** Where a call's warnings go (the request's logger). */
export type CallLog = {
  warn: (details: object, message: string) => void;
  error: (details: object, message: string) => void;
};

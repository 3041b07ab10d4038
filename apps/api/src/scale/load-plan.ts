/** What one client host is asked to do (the load client reads it as JSON on stdin). */
export type LoadPlan = {
  host: string;
  apiUrl: string;
  identityUrl: string;
  consoleUrl: string;
  /** The allowed Origin the gateway calls send. */
  origin: string;
  model: string;
  durationMs: number;
  gatewayWorkers: number;
  topUpEveryMs: number;
  topUpDollars: number;
  accounts: { email: string; cookie: string; keys: { id: string; value: string }[] }[];
};

/** A complete 200 answer: its completion id, the instance that served it (X-Meterway-Instance) and when it arrived (epoch ms). */
export type Answer = { id: string; instance: string; at: number };

/**
 * What a key's calls got: complete 200 answers; 200s cut short; refusals an instance answered
 * (nothing may be charged for them); calls lost with no instance's answer (a connection cut,
 * HAProxy's 502), which may have reached the model before the instance died.
 */
export type KeyTally = { answers: Answer[]; cutShort: number; refused: number; lost: number };

/** What one client host saw (the load client writes it as JSON on stdout). */
export type LoadResult = {
  host: string;
  /** Outcomes by kind: `gateway 200`, `gateway 503 service_unavailable (Retry-After)`, `console /bff/me 200`, … */
  counts: Record<string, number>;
  keys: Record<string, KeyTally>;
  /** Answers no drill excuses (a 5xx from an instance other than 503 with Retry-After): the first few, whole. */
  unclean: unknown[];
  uncleanCount: number;
  /** Checkout sessions whose sandbox payment was accepted (202). */
  paid: string[];
};

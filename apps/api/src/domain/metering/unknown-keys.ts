import { LRUCache } from 'lru-cache';

/**
 * How many values that match no key one client address may present to one instance in a minute.
 * A key value is 190 random bits, so this stops no guess; it bounds the database lookups a script
 * can cause without any key (one per unknown value), while the keys it already knows keep working.
 */
export const unknownKeysPerMinute = 60;
const windowMs = 60_000;
const maxClients = 100_000;

export type UnknownKeys = {
  /** Seconds until `client` may present a value this instance does not know, or 0 when it may now. */
  retryAfter: (client: string, now: number) => number;
  /** `client` presented a value that matched no key. */
  count: (client: string, now: number) => void;
};

/** This instance's count of unknown key values per client address, in fixed one-minute windows from the first. */
export function createUnknownKeys(perMinute = unknownKeysPerMinute): UnknownKeys {
  const windows = new LRUCache<string, { startedAt: number; values: number }>({ max: maxClients });
  const current = (client: string, now: number) => {
    const window = windows.get(client);
    return window && now < window.startedAt + windowMs ? window : undefined;
  };
  return {
    retryAfter: (client, now) => {
      const window = current(client, now);
      return window && window.values >= perMinute ? Math.ceil((window.startedAt + windowMs - now) / 1000) : 0;
    },
    count: (client, now) => {
      const window = current(client, now);
      if (window) window.values++;
      else windows.set(client, { startedAt: now, values: 1 });
    },
  };
}

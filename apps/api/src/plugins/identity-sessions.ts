import { createHash } from 'node:crypto';
import { isEmailVerified } from '@meterway/contracts';

/** What the api needs from identity's whoami. */
export type IdentitySession = { identityId: string; email: string; verified: boolean };

export type WhoamiResult =
  | { outcome: 'session'; session: IdentitySession }
  | { outcome: 'no-session' }
  /** Identity's 403 (a second factor is due): its body goes back to the console unchanged. */
  | { outcome: 'forbidden'; body: unknown }
  | { outcome: 'unavailable' };

type WhoamiBody = {
  identity?: { id?: string; traits?: { email?: string }; verifiable_addresses?: { value?: string; verified?: boolean }[] };
};

const cacheTtlMs = 5_000;
const cacheLimit = 10_000;

/**
 * Asks identity who a request's cookies belong to. Answers are cached for at most 5 s under the
 * sha256 of the Cookie header, so one identity's answer is never served for another's cookies;
 * the cache holds at most 10,000 entries, dropping the oldest first. Only sessions are cached:
 * a logout is seen at once by the next request that carries no session.
 */
export function identitySessions(identityUrl: string, now: () => number = Date.now) {
  const cache = new Map<string, { expiresAt: number; session: IdentitySession }>();

  async function whoami(cookie: string): Promise<WhoamiResult> {
    const key = createHash('sha256').update(cookie).digest('hex');
    const cached = cache.get(key);
    if (cached && cached.expiresAt > now()) return { outcome: 'session', session: cached.session };
    cache.delete(key);

    let response: Response;
    try {
      response = await fetch(`${identityUrl}/sessions/whoami`, {
        headers: { cookie, accept: 'application/json' },
        signal: AbortSignal.timeout(5_000),
      });
    } catch {
      return { outcome: 'unavailable' };
    }
    if (response.status === 401) return { outcome: 'no-session' };
    if (response.status === 403) return { outcome: 'forbidden', body: await response.json().catch(() => ({})) };
    if (!response.ok) return { outcome: 'unavailable' };
    const body = (await response.json()) as WhoamiBody;
    const email = body.identity?.traits?.email;
    if (!body.identity?.id || !email) return { outcome: 'unavailable' };
    const session: IdentitySession = {
      identityId: body.identity.id,
      email,
      verified: isEmailVerified(body.identity),
    };
    if (cache.size >= cacheLimit) cache.delete(cache.keys().next().value as string);
    cache.set(key, { expiresAt: now() + cacheTtlMs, session });
    return { outcome: 'session', session };
  }

  return { whoami, cacheSize: () => cache.size };
}

export type IdentitySessions = ReturnType<typeof identitySessions>;

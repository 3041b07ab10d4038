import { canMakeAdminKey } from '@meterway/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiDb } from '../db/index.js';
import { findSecretKey, type PresentedSecretKey } from '../domain/developer/find-secret-key.js';
import { isSecretKeyValue, type SecretKeyHasher } from '../domain/keys/secret-key-hash.js';
import type { RateWindows } from '../domain/metering/rate-windows.js';
import { GatewayError, gatewayErrors } from '../gateway/openai-error.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The admin-scoped secret key a developer-API request presented; the scope's hook guarantees it. */
    developerKey: PresentedSecretKey | null;
  }
}

/** Requests per minute one admin key may make, counted in the rate windows every api instance shares. */
export const developerApiRequestsPerMinute = 600;

export const developerErrors = {
  invalidKey: () =>
    new GatewayError(
      401,
      'invalid_request_error',
      'invalid_api_key',
      'Incorrect or missing API key: the developer API takes a secret key with the admin scope (sk_live_…) as a Bearer token. Create one on the Meterway dashboard under Secret keys (scope Admin).',
    ),
  publishableKey: () =>
    new GatewayError(
      401,
      'invalid_request_error',
      'invalid_api_key',
      'This is a publishable key, which only calls models. The developer API takes a secret key with the admin scope (sk_live_…), from your server.',
    ),
  gatewayKey: () =>
    new GatewayError(
      403,
      'permission_error',
      'gateway_key_not_allowed',
      'This secret key has the gateway scope: it calls models on /v1/chat/completions only. Create a secret key with the admin scope for the developer API.',
    ),
  makerLacksRole: () =>
    new GatewayError(
      403,
      'permission_error',
      'key_maker_lacks_role',
      'A key never does more than the person who holds it: whoever made or last rolled this admin key is no longer an owner or admin of the organisation. An owner or admin can roll it on the Meterway dashboard (Secret keys) to take it over, or delete it.',
    ),
  rateLimited: (retryAfterSeconds: number) =>
    new GatewayError(
      429,
      'requests',
      'rate_limit_exceeded',
      `Too many requests for this key (at most ${developerApiRequestsPerMinute} a minute). Retry in ${retryAfterSeconds} seconds.`,
      null,
      retryAfterSeconds,
    ),
};

/** The acting key of a developer-API request (set by requireAdminKey). */
export function developerKeyOf(request: FastifyRequest): PresentedSecretKey {
  if (!request.developerKey) throw developerErrors.invalidKey();
  return request.developerKey;
}

/**
 * Authenticates every request of the scope it is registered in by an admin-scoped secret key,
 * looked up by its keyed hash in the database (never the gateway's key cache, so a deleted or
 * rolled-away key stops at once), before the body is read. A secret key sent by a browser (with an
 * Origin) has leaked into a page and is refused like the gateway refuses it; so is a key whose
 * maker no longer holds a role that may make one; each key then gets its share of a per-minute rate
 * shared across instances.
 */
export function requireAdminKey(app: FastifyInstance, deps: { db: ApiDb['db']; hashSecretKey: SecretKeyHasher; rate: RateWindows }) {
  app.decorateRequest('developerKey', null);
  app.addHook('onRequest', async (request, reply) => {
    const presented = request.headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (presented?.startsWith('pk_live_')) throw developerErrors.publishableKey();
    if (!presented || !isSecretKeyValue(presented)) throw developerErrors.invalidKey();
    const now = new Date();
    const key = await findSecretKey(deps.db, deps.hashSecretKey(presented), now);
    if (!key) throw developerErrors.invalidKey();
    const origin = request.headers.origin;
    if (origin !== undefined) {
      // Readable by the page, so whoever put the key there learns why (as the gateway's refusal is).
      reply.header('access-control-allow-origin', origin);
      reply.header('vary', 'Origin');
      throw gatewayErrors.secretKeyInBrowser();
    }
    if (key.scope !== 'admin') throw developerErrors.gatewayKey();
    // The maker's role now, not when they made it: demoted or removed, their key stops with them.
    if (key.madeByPersonId !== null && (key.makerRole === null || !canMakeAdminKey(key.makerRole))) throw developerErrors.makerLacksRole();
    const retryAfter = await deps.rate.consume(key.organizationId, `developer-api ${key.id}`, developerApiRequestsPerMinute, now);
    if (retryAfter) throw developerErrors.rateLimited(retryAfter);
    request.developerKey = key;
  });
}

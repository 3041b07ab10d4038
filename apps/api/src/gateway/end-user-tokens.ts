import { maxEndUserLength } from '@meterway/contracts';
import { createRemoteJWKSet, customFetch, errors, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import { Agent, fetch as undiciFetch } from 'undici';
import type { EndUserTokens } from '../db/schema/index.js';
import { publicOnlyLookup, type Resolve, refuseUnsafeUrl } from '../domain/webhooks/endpoint-address.js';
import { gatewayErrors } from './openai-error.js';

/** The header a browser app sends its signed-in user's token in, beside the publishable key. */
export const endUserTokenHeader = 'meterway-user-token';

/** Where a secret key's server names the end user it calls for (its own user id), for the per-end-user caps and the usage rows. */
export const endUserNameHeader = 'meterway-end-user';

/** Asymmetric signatures only: a key's JWKS is public, so a symmetric (HS256) key from it would let anyone sign. */
const algorithms = ['RS256', 'ES256'];
const clockToleranceSeconds = 30;
/** The signing keys of one JWKS URL are fetched at most this often, once more when a token names a key id they lack. */
const jwksCacheMs = 10 * 60_000;
const jwksCooldownMs = 30_000;
const jwksTimeoutMs = 5_000;
/** Past this many JWKS URLs this instance forgets the least recently used (a bound, not an expected number). */
const maxJwksUrls = 10_000;

export type EndUserVerifier = {
  /** The end user (the token's `sub`) of a key that requires end-user tokens; 401 without a valid token. */
  endUserOf: (settings: EndUserTokens, token: string | undefined) => Promise<string>;
};

/**
 * How signing keys are fetched: through the outbound-address guard the webhooks use (in production,
 * https only, to public addresses, connecting to the address checked), and at most once per URL
 * per 30 s after a failure, so a copied key's calls cannot make this instance hammer (or probe) a
 * host. Whatever the host answered stays here: the caller is told only that the keys could not be
 * fetched (whyInvalid).
 */
function guardedJwksFetch(options: { production: boolean; resolve?: Resolve | undefined }) {
  const agent = new Agent({
    connect: { timeout: jwksTimeoutMs, ...(options.production ? { lookup: publicOnlyLookup(options.resolve) } : {}) },
    headersTimeout: jwksTimeoutMs,
    bodyTimeout: jwksTimeoutMs,
  });
  const failedAt = new LRUCache<string, number>({ max: maxJwksUrls });
  const fetchKeys = async (url: string, init: { headers: Headers; method: 'GET'; redirect: 'manual'; signal: AbortSignal }): Promise<Response> => {
    const failed = failedAt.get(url);
    if (failed !== undefined && Date.now() - failed < jwksCooldownMs) throw new Error('the JWKS URL failed moments ago');
    try {
      if (options.production) refuseUnsafeUrl(url, options);
      const request = { method: init.method, redirect: init.redirect, signal: init.signal, headers: Object.fromEntries(init.headers), dispatcher: agent };
      const response = (await undiciFetch(url, request)) as unknown as Response;
      if (response.status !== 200) failedAt.set(url, Date.now());
      return response;
    } catch (error) {
      failedAt.set(url, Date.now());
      throw error;
    }
  };
  return { fetchKeys, close: () => agent.close() };
}

/**
 * This instance's verifier of end-user tokens, keeping each JWKS URL's signing keys it fetched;
 * `close` ends its connections (the app closes it).
 */
export function createEndUserVerifier(options: { production: boolean; resolve?: Resolve }): EndUserVerifier & { close: () => Promise<void> } {
  const { fetchKeys, close } = guardedJwksFetch(options);
  const keySets = new LRUCache<string, JWTVerifyGetKey>({ max: maxJwksUrls });
  const keySetOf = (jwksUrl: string) => {
    let keySet = keySets.get(jwksUrl);
    if (!keySet) {
      keySet = createRemoteJWKSet(new URL(jwksUrl), {
        cacheMaxAge: jwksCacheMs,
        cooldownDuration: jwksCooldownMs,
        timeoutDuration: jwksTimeoutMs,
        [customFetch]: fetchKeys,
      });
      keySets.set(jwksUrl, keySet);
    }
    return keySet;
  };
  return {
    close,
    async endUserOf(settings, token) {
      if (!token) throw gatewayErrors.endUserTokenRequired();
      let sub: unknown;
      let issuedAt: number | undefined;
      try {
        const verified = await jwtVerify(token, keySetOf(settings.jwksUrl), {
          issuer: settings.issuer,
          audience: settings.audience,
          algorithms,
          clockTolerance: clockToleranceSeconds,
          requiredClaims: ['exp', 'sub'],
        });
        sub = verified.payload.sub;
        issuedAt = verified.payload.iat;
      } catch (error) {
        throw gatewayErrors.invalidEndUserToken(whyInvalid(error));
      }
      // jose checks iat only against a maximum age; one issued beyond the tolerance ahead is not valid yet either.
      if (issuedAt !== undefined && issuedAt > Date.now() / 1000 + clockToleranceSeconds) throw gatewayErrors.invalidEndUserToken('it is not valid yet');
      if (typeof sub !== 'string' || sub.length === 0 || sub.length > maxEndUserLength) {
        throw gatewayErrors.invalidEndUserToken(`its sub must name the end user in 1 to ${maxEndUserLength} characters`);
      }
      return sub;
    },
  };
}

/** Why a token was refused, in words its sender can act on. */
function whyInvalid(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'it has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'it was not issued by the issuer this key trusts';
    if (error.claim === 'aud') return 'it is not meant for the audience this key expects';
    if (error.claim === 'nbf' || error.claim === 'iat') return 'it is not valid yet';
    return `its ${error.claim} claim is missing or wrong`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'it is not signed with RS256 or ES256';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'its signature does not verify';
  if (error instanceof errors.JWKSNoMatchingKey) return "it is signed with a key the key's JWKS URL does not list";
  // A JWKS answer that is not 200 is a plain JOSEError; a connection that fails is not one at all.
  const fetching =
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError) ||
    error.constructor === errors.JOSEError;
  if (fetching) return "the signing keys could not be fetched from the key's JWKS URL";
  return 'it is not a well-formed signed JWT';
}

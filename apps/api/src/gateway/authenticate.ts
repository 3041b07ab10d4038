import { maxEndUserLength } from '@meterway/contracts';
import { isPublishableKeyValue } from '../domain/keys/key-value.js';
import { isSecretKeyValue } from '../domain/keys/secret-key-hash.js';
import type { PresentedKey } from '../domain/metering/admit-calls.js';
import { type Caller, endUserOf } from '../domain/metering/allowances.js';
import { clientBlocked, endUserBlocked, type GatewayKey, modelAllowed, originAllowed } from '../domain/metering/find-key.js';
import type { CallHeaders, Gateway } from './gateway.js';
import { GatewayError, gatewayErrors } from './openai-error.js';

/** The key a call presented, and who calls with it. */
export type Called = { presented: PresentedKey; caller: Caller };

/**
 * Who calls: a live key, from one of its origins. `cached` answers from the key as this instance
 * last read it, for a call whose admission checks the key again in the database (or takes a hold
 * reserved ahead, checked under stockTrustMs ago); an origin the cached key refuses is checked
 * against the key as it is now before the call is refused.
 *
 * A secret key is looked up by its hash, as it is stored, and works only from servers: a browser
 * always sends an Origin, so one that does is refused (the key has leaked into a page). An address
 * that presented unknownKeysPerMinute values matching no key is refused any other value this
 * instance does not know, without a lookup, until its minute is over.
 */
export async function authenticate(gateway: Gateway, caller: CallHeaders, read: 'cached' | 'fresh'): Promise<PresentedKey> {
  const value = credentialOf(gateway, caller.authorization);
  if (!value) throw gatewayErrors.invalidKey();
  const { keys, unknownKeys } = gateway.meter;
  if (!keys.known(value)) {
    const retryAfter = unknownKeys.retryAfter(caller.client, Date.now());
    if (retryAfter) throw gatewayErrors.unknownKeysLimited(retryAfter);
  }
  const key = await keys[read](value);
  if (!key) {
    unknownKeys.count(caller.client, Date.now());
    throw gatewayErrors.invalidKey();
  }
  if (key.kind === 'secret') {
    if (caller.origin !== undefined) throw gatewayErrors.secretKeyInBrowser();
    if (key.scope !== 'gateway') throw gatewayErrors.adminKeyOnGateway();
    return { key, value };
  }
  if (!originAllowed(key.allowedOrigins, caller.origin)) {
    if (read === 'cached') return authenticate(gateway, caller, 'fresh');
    throw gatewayErrors.originNotAllowed(caller.origin);
  }
  return { key, value };
}

/**
 * What to look a presented key up by: only the formats we issue are credentials, a publishable key
 * as it is and a secret key by its keyed hash. Anything else (a stored hash copied from a backup, a
 * value of another shape) is refused before any lookup.
 */
function credentialOf(gateway: Gateway, authorization: string | undefined): string | undefined {
  const presented = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (!presented) return undefined;
  if (isSecretKeyValue(presented)) return gateway.hashSecretKey(presented);
  return isPublishableKeyValue(presented) ? presented : undefined;
}

/** The end user a secret key's server names in Meterway-End-User, if any: trusted, since only the key's owner holds the key. */
function namedEndUser(name: string | undefined): string | null {
  if (name === undefined || name === '') return null;
  if (name.length > maxEndUserLength || !/^[\x21-\x7e]+$/.test(name)) throw gatewayErrors.invalidEndUserName();
  return name;
}

/**
 * Who calls with the key: its client address, not blocked, and for a key that requires end-user
 * tokens the end user a valid token names (401 without one), not blocked either (403); a secret
 * key's server may name the end user instead (Meterway-End-User). A call the
 * key as this instance last read it refuses is checked against the key as it is now before it is
 * refused.
 */
export async function callerOf(gateway: Gateway, request: CallHeaders, presented: PresentedKey, read: 'cached' | 'fresh'): Promise<Called> {
  try {
    const { key } = presented;
    if (clientBlocked(key, request.client)) throw gatewayErrors.clientBlocked();
    const endUser = key.endUserTokens
      ? await gateway.endUsers.endUserOf(key.endUserTokens, request.endUserToken)
      : key.kind === 'secret'
        ? namedEndUser(request.endUserName)
        : null;
    if (endUser !== null && endUserBlocked(key, endUser)) throw gatewayErrors.endUserBlocked();
    return { presented, caller: { client: request.client, endUser } };
  } catch (error) {
    if (read === 'fresh' || !(error instanceof GatewayError)) throw error;
    return callerOf(gateway, request, await authenticate(gateway, request, 'fresh'), 'fresh');
  }
}

/**
 * Within the key's per-address and per-end-user rates, then within its overall rate. A caller over
 * its own cap is refused before it counts against the key, so it cannot use up the rate the key's
 * other visitors share.
 */
export async function withinRate(gateway: Gateway, key: GatewayKey, caller: Caller): Promise<void> {
  const now = new Date();
  if (key.clientRequestsPerMinute !== null) {
    const retryAfter = await gateway.meter.rate.consume(key.organizationId, `${key.id} ${caller.client}`, key.clientRequestsPerMinute, now);
    if (retryAfter) throw gatewayErrors.clientRateLimited(retryAfter);
  }
  if (key.endUserRequestsPerMinute !== null) {
    const retryAfter = await gateway.meter.rate.consume(key.organizationId, `${key.id} end-user ${endUserOf(caller)}`, key.endUserRequestsPerMinute, now);
    if (retryAfter) throw gatewayErrors.endUserRateLimited(retryAfter);
  }
  const retryAfter = await gateway.meter.rate.consume(key.organizationId, key.id, gateway.rateLimitPerMinute, now);
  if (retryAfter) throw gatewayErrors.rateLimited(retryAfter);
}

/** The key allows the model; a key from this instance's copy that does not is read again before the call is refused. */
export async function allowingModel(gateway: Gateway, caller: CallHeaders, presented: PresentedKey, model: string): Promise<PresentedKey> {
  if (modelAllowed(presented.key, model)) return presented;
  const fresh = await authenticate(gateway, caller, 'fresh');
  if (modelAllowed(fresh.key, model)) return fresh;
  throw gatewayErrors.modelNotAllowed(model);
}

/**
 * The checks between authentication from this instance's copy of the key and admission: a call
 * they refuse is answered as it would be from the key as it is now (401 for a key deleted since,
 * 403 for an origin removed since) before their own error.
 */
export async function refusedOnlyIfKeyStands<T>(gateway: Gateway, caller: CallHeaders, checks: () => Promise<T>): Promise<T> {
  try {
    return await checks();
  } catch (error) {
    await authenticate(gateway, caller, 'fresh');
    throw error;
  }
}

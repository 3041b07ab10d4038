import type { PresentedKey } from '../domain/metering/admit-calls.js';
import { clientBlocked, type GatewayKey, modelAllowed, originAllowed } from '../domain/metering/find-key.js';
import type { CallRequest, Gateway } from './gateway.js';
import { gatewayErrors } from './openai-error.js';

type Caller = Pick<CallRequest, 'authorization' | 'origin' | 'client'>;

/**
 * Who calls: a live key, from one of its origins. `cached` answers from the key as this instance
 * last read it, for a call whose admission checks the key again in the database (or takes a hold
 * reserved ahead, checked under stockTrustMs ago); an origin the cached key refuses is checked
 * against the key as it is now before the call is refused.
 */
export async function authenticate(gateway: Gateway, caller: Caller, read: 'cached' | 'fresh'): Promise<PresentedKey> {
  const value = caller.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const key = value ? await gateway.meter.keys[read](value) : undefined;
  if (!key || !value) throw gatewayErrors.invalidKey();
  if (!originAllowed(key.allowedOrigins, caller.origin)) {
    if (read === 'cached') return authenticate(gateway, caller, 'fresh');
    throw gatewayErrors.originNotAllowed(caller.origin);
  }
  return { key, value };
}

/** A client the key's owner blocked is refused before anything counts it: 403, from the key as it is now. */
export async function notBlocked(gateway: Gateway, caller: Caller, presented: PresentedKey, read: 'cached' | 'fresh'): Promise<PresentedKey> {
  if (!clientBlocked(presented.key, caller.client)) return presented;
  if (read === 'cached') return notBlocked(gateway, caller, await authenticate(gateway, caller, 'fresh'), 'fresh');
  throw gatewayErrors.clientBlocked();
}

/**
 * Within the key's per-address rate, then within its overall rate. A client over its own cap is
 * refused before it counts against the key, so it cannot use up the rate the key's other visitors
 * share.
 */
export async function withinRate(gateway: Gateway, key: GatewayKey, client: string): Promise<void> {
  const now = new Date();
  if (key.clientRequestsPerMinute !== null) {
    const retryAfter = await gateway.meter.rate.consume(`${key.id} ${client}`, key.clientRequestsPerMinute, now);
    if (retryAfter) throw gatewayErrors.clientRateLimited(retryAfter);
  }
  const retryAfter = await gateway.meter.rate.consume(key.id, gateway.rateLimitPerMinute, now);
  if (retryAfter) throw gatewayErrors.rateLimited(retryAfter);
}

/** The key allows the model; a key from this instance's copy that does not is read again before the call is refused. */
export async function allowingModel(gateway: Gateway, caller: Caller, presented: PresentedKey, model: string): Promise<PresentedKey> {
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
export async function refusedOnlyIfKeyStands<T>(gateway: Gateway, caller: Caller, checks: () => Promise<T>): Promise<T> {
  try {
    return await checks();
  } catch (error) {
    await authenticate(gateway, caller, 'fresh');
    throw error;
  }
}

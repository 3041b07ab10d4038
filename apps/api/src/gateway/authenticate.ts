import type { PresentedKey } from '../domain/metering/admit-calls.js';
import { type GatewayKey, originAllowed } from '../domain/metering/find-key.js';
import type { CallRequest, Gateway } from './gateway.js';
import { gatewayErrors } from './openai-error.js';

type Caller = Pick<CallRequest, 'authorization' | 'origin'>;

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

/** Within the key's request rate. */
export async function withinRate(gateway: Gateway, key: GatewayKey): Promise<void> {
  const retryAfter = await gateway.meter.rate.consume(key.id, gateway.rateLimitPerMinute, new Date());
  if (retryAfter) throw gatewayErrors.rateLimited(retryAfter);
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

import { randomUUID } from 'node:crypto';
import { type Caller, endUserOf } from '../domain/metering/allowances.js';
import type { GatewayKey } from '../domain/metering/find-key.js';
import { requestHashOf } from '../domain/metering/response-cache.js';
import { allowingModel, authenticate, type Called, callerOf } from './authenticate.js';
import type { Call } from './forward-call.js';
import type { CallRequest, Gateway } from './gateway.js';
import { type ChatBody, usageFrom } from './providers/model-provider.js';

// A key's response cache (issue #24, off unless the key's owner sets a cache time): a non-streamed
// request the key had answered for the same end user within that time is answered again from the
// cache, charged nothing, its row marked as a cache hit; every answer says which it was in
// `x_meterway.cacheHit`. Another end user's answer is served only by a key whose owner shares its
// cache across end users (issue #52, response-cache.ts).

/** Whether the key caches this request's answer: a cache time set, and an answer that is not streamed. */
export const cachesAnswer = (called: Called, body: ChatBody): boolean => called.presented.key.responseCacheSeconds !== null && !body.stream;

/** The request's identity in the key's cache: of this end user's, or of every end user's when the key shares its answers. */
const cacheIdentityOf = (key: GatewayKey, caller: Caller, body: ChatBody) => requestHashOf(body, key.responseCacheShared ? sharedEndUser : endUserOf(caller));
/** No end user's name: an address or a token's `sub` is never empty. */
const sharedEndUser = '';

/**
 * The cached answer to this request, if the key has one. A hit is served from the key as it is now
 * (read afresh: a key deleted, its caller blocked, its cache turned off or no longer shared, the
 * model disallowed or an output limit lowered below the answer since answers nothing from the
 * cache; neither does a key whose budget is spent, nor an organisation that owes: those are
 * refused as a paid call is), and recorded as a row charged nothing.
 */
export async function cachedAnswer(gateway: Gateway, request: CallRequest, called: Called, body: ChatBody): Promise<object | undefined> {
  const { key } = called.presented;
  const now = new Date();
  const entry = await gateway.meter.responseCache.find(
    { organizationId: key.organizationId, publishableKeyId: key.id },
    cacheIdentityOf(key, called.caller, body),
    now,
  );
  if (!entry) return undefined;
  const fresh = await callerOf(gateway, request, await authenticate(gateway, request, 'fresh'), 'fresh');
  const current = fresh.presented.key;
  if (current.responseCacheSeconds === null || current.responseCacheShared !== key.responseCacheShared) return undefined;
  if (aboveOutputLimit(entry.outputTokens, current.maxOutputTokensPerCall, body)) return undefined;
  await allowingModel(gateway, request, fresh.presented, body.model);
  const completionId = `chatcmpl-${randomUUID()}`;
  await gateway.meter.responseCache.recordHit({
    organizationId: key.organizationId,
    publishableKeyId: key.id,
    completionId,
    model: body.model,
    entry,
    priceVersion: gateway.pricing.version,
    caller: fresh.caller,
    now,
  });
  gateway.metrics.answeredFromCache();
  return { ...entry.answer, id: completionId, x_meterway: { cacheHit: true } };
}

/** Whether an answer has more output than the key now allows a call (its limit per call, for each of the request's choices). */
const aboveOutputLimit = (outputTokens: number, limitPerCall: number | null, body: ChatBody) =>
  limitPerCall !== null && outputTokens > limitPerCall * (body.n ?? 1);

/**
 * Keeps a provider's answer for the key's cache time, and answers it marked as no hit. An answer
 * without usage is not kept (its hits' rows would have no tokens to show); a cache the database
 * cannot write to costs the answer nothing but a warning.
 */
export async function rememberAnswer(gateway: Gateway, call: Call, body: ChatBody, answer: Record<string, unknown>): Promise<object> {
  const usage = usageFrom(answer.usage as Parameters<typeof usageFrom>[0]);
  const seconds = call.key.responseCacheSeconds;
  if (usage && seconds !== null) {
    await gateway.meter.responseCache
      .remember({
        organizationId: call.key.organizationId,
        publishableKeyId: call.key.id,
        requestHash: cacheIdentityOf(call.key, call.caller, body),
        answer,
        inputTokens: usage.promptTokens,
        cachedInputTokens: usage.cachedTokens,
        outputTokens: usage.completionTokens,
        provider: call.provider,
        expiresAt: new Date(Date.now() + seconds * 1000),
      })
      .catch((error: unknown) => call.log.warn({ err: error, completionId: call.completionId }, 'keeping an answer in the response cache failed'));
  }
  return { ...answer, x_meterway: { cacheHit: false } };
}

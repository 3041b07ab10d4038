import { randomUUID } from 'node:crypto';
import { chatRequestSchema } from '@meterway/contracts';
import type { Admission } from '../domain/metering/admission.js';
import { Refusal, StaleKey } from '../domain/metering/admit-calls.js';
import { allowanceResetsAt } from '../domain/metering/allowances.js';
import { modelAllowed } from '../domain/metering/find-key.js';
import { allowingModel, authenticate, type Called, callerOf, refusedOnlyIfKeyStands, withinRate } from './authenticate.js';
import { cachedAnswer, cachesAnswer, rememberAnswer } from './cached-answers.js';
import { type Call, complete, type EventClient, stream } from './forward-call.js';
import type { CallHeaders, CallRequest, Gateway } from './gateway.js';
import { maxNesting, nestsDeeperThan } from './nesting.js';
import { GatewayError, gatewayErrors } from './openai-error.js';
import { type ModelPrice, pricedModelsOf } from './pricing.js';
import type { ChatBody } from './providers/model-provider.js';
import { type WorstCase, worstCaseOf } from './worst-case.js';

/**
 * Who calls, in the order it is checked: a live key, from an origin it allows, an address and, for
 * a key that requires end-user tokens, an end user the key's owner did not block, within the rates
 * of the key, the address and the end user. The route asks this before it reads the body, so a
 * caller refused here (a forged or copied key from a script, say) never has its body parsed: up to
 * 1 MiB of JSON that it would cost us to read.
 */
export async function callerOfCall(gateway: Gateway, request: CallHeaders): Promise<Called> {
  return refusalsCounted(gateway, async () => {
    const called = await callerOf(gateway, request, await authenticate(gateway, request, 'cached'), 'cached');
    await refusedOnlyIfKeyStands(gateway, request, () => withinRate(gateway, called.presented.key, called.caller));
    return called;
  });
}

/**
 * One metered chat completion of a caller `callerOfCall` let in, in the order it happens: a request
 * the price list can price and its worst case, the key's cached answer if it keeps one
 * (cached-answers.ts), a model the key allows, admission (that worst case, within the key's output
 * limit, held against the credit, the key's budget and the caller's allowances), then forwarded to
 * the provider, answered or streamed, and charged what it used (forward-call.ts). A JSON answer is
 * returned; a stream is written to `events`. Refusals are GatewayErrors, thrown before anything is held.
 */
export async function completeChat(gateway: Gateway, request: CallRequest, called: Called, events: EventClient): Promise<object | undefined> {
  const admitted = await refusalsCounted(gateway, () => admitChat(gateway, request, called));
  if ('cached' in admitted) return admitted.cached;
  const { body, call, caching } = admitted;
  const forwarded = capped(body, call.admission);
  // What befalls the call from here on is not a refusal.
  if (body.stream) return stream(gateway, forwarded, call, events);
  const answered = complete(gateway, forwarded, call);
  return caching ? answered.then((answer) => rememberAnswer(gateway, call, body, answer)) : answered;
}

/** A priced request, answered from the key's cache or admitted with its hold. */
async function admitChat(gateway: Gateway, request: CallRequest, called: Called) {
  const { body, price, worst } = await refusedOnlyIfKeyStands(gateway, request, async () => {
    const body = parseBody(request.body);
    const price = gateway.pricing.models.get(body.model);
    if (!price) throw gatewayErrors.unknownModel(body.model);
    return { body, price, worst: worstCaseOf(body, price) };
  });
  const caching = cachesAnswer(called, body);
  const cached = caching ? await cachedAnswer(gateway, request, called, body) : undefined;
  if (cached) return { cached };
  const admittedAt = Date.now();
  const { key, caller, admission } = await admitCall(gateway, request, called, body.model, price, worst);
  gateway.metrics.admitted();
  const call: Call = {
    key,
    caller,
    admittedAt,
    completionId: `chatcmpl-${randomUUID()}`,
    admission,
    price,
    estimatedInputTokens: worst.inputTokens,
    choices: worst.choices,
    model: body.model,
    provider: gateway.provider.nameFor?.(body.model) ?? gateway.provider.name,
    log: request.log,
  };
  return { body, call, caching };
}

async function refusalsCounted<T>(gateway: Gateway, steps: () => Promise<T>): Promise<T> {
  try {
    return await steps();
  } catch (error) {
    if (error instanceof GatewayError) gateway.metrics.refused(error.code);
    throw error;
  }
}

/**
 * The models a key may call, OpenAI-shaped so OpenAI's clients parse the list, each with what it
 * costs the caller in `x_meterway` (USD per 1M tokens with the margin, the price list's version).
 */
export async function listModels(gateway: Gateway, request: CallHeaders) {
  const { presented, caller } = await callerOf(gateway, request, await authenticate(gateway, request, 'fresh'), 'fresh');
  const { key } = presented;
  await withinRate(gateway, key, caller);
  const priceListVersion = gateway.pricing.version;
  return {
    object: 'list',
    data: pricedModelsOf(gateway.pricing)
      .filter((model) => modelAllowed(key, model.id))
      .map((model) => ({
        id: model.id,
        object: 'model',
        created: 0,
        owned_by: 'meterway',
        x_meterway: {
          inputPrice: model.inputPerMillion,
          cachedInputPrice: model.cachedInputPerMillion,
          outputPrice: model.outputPerMillion,
          maxOutputTokens: model.maxOutputTokens,
          priceListVersion,
        },
      })),
  };
}

function parseBody(raw: unknown): ChatBody {
  // The body is forwarded as it came; one the gateway could not serialise again must stop here.
  if (nestsDeeperThan(raw, maxNesting)) throw gatewayErrors.invalidRequest(`The request body nests deeper than ${maxNesting} levels.`, null);
  const parsed = chatRequestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw gatewayErrors.invalidRequest(issue?.message ?? 'Invalid request body.', issue?.path.join('.') || null);
  }
  return parsed.data as ChatBody;
}

/**
 * Admission for the presented key, for a model it allows and within its output limit per call; a
 * key that changed since it was read is read again and its caller checked afresh.
 */
async function admitCall(gateway: Gateway, request: CallRequest, called: Called, model: string, price: ModelPrice, worst: WorstCase) {
  let { presented, caller } = called;
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) ({ presented, caller } = await callerOf(gateway, request, presented, 'fresh'));
    presented = await allowingModel(gateway, request, presented, model);
    const keyLimit = presented.key.maxOutputTokensPerCall;
    try {
      const admission = await gateway.meter.admit({
        presented,
        prices: price,
        inputTokens: worst.inputTokens,
        choices: worst.choices,
        requestedMaxTokens: worst.maxTokens,
        maxOutputTokens: keyLimit === null ? price.maxOutputTokens : Math.min(keyLimit, price.maxOutputTokens),
        caller,
        now: new Date(),
      });
      return { key: presented.key, caller, admission };
    } catch (error) {
      if (error instanceof Refusal) throw refusalError(error, new Date());
      if (!(error instanceof StaleKey)) throw error;
      // Changing again between our reads and admission, repeatedly: treat as gone.
      if (attempt === 2) throw gatewayErrors.invalidKey();
      presented = await authenticate(gateway, request, 'fresh');
    }
  }
}

function refusalError({ reason, allowance }: Refusal, now: Date) {
  if (reason === 'credit') return gatewayErrors.insufficientCredit();
  if (reason === 'budget' || !allowance) return gatewayErrors.budgetExceeded();
  const retryAfter = Math.max(1, Math.ceil((allowanceResetsAt(allowance).getTime() - now.getTime()) / 1000));
  if (allowance.kind === 'address-day') return gatewayErrors.clientAllowanceSpent(retryAfter);
  return gatewayErrors.endUserAllowanceSpent(allowance.kind === 'end-user-day' ? 'day' : 'month', retryAfter);
}

/**
 * The provider sees the limit that was reserved, under every name the client used (max_tokens
 * when it used none): whichever name the provider honours, it cannot produce more than was held.
 */
function capped(body: ChatBody, admission: Admission): ChatBody {
  const named = (['max_tokens', 'max_completion_tokens'] as const).filter((field) => body[field] != null);
  const limits = Object.fromEntries((named.length ? named : ['max_tokens']).map((field) => [field, admission.maxTokens]));
  return { ...body, ...limits };
}

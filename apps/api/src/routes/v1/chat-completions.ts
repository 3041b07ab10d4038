import { randomUUID } from 'node:crypto';
import { chatRequestSchema } from '@meterway/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { admit, type Admission } from '../../domain/metering/admission.js';
import { type PresentedKey, Refusal, StaleKey } from '../../domain/metering/admit-calls.js';
import { type GatewayKey, originAllowed } from '../../domain/metering/find-key.js';
import { cachedKey, freshKey } from '../../domain/metering/key-cache.js';
import { consumeKeyRate } from '../../domain/metering/key-rate-limit.js';
import { maxNesting, nestsDeeperThan } from '../../gateway/nesting.js';
import { gatewayErrors } from '../../gateway/openai-error.js';
import type { ModelPrice } from '../../gateway/pricing.js';
import type { ChatBody } from '../../gateway/providers/model-provider.js';
import { type WorstCase, worstCaseOf } from '../../gateway/worst-case.js';
import { complete, streamCompletion } from './forward-call.js';
import type { GatewayDeps } from './gateway-deps.js';

/**
 * Who calls: a live key, from one of its origins. `cached` answers from the key as this instance
 * last read it, for a call whose admission checks the key again in the database (or takes a hold
 * reserved ahead, checked under stockTrustMs ago); an origin the cached key refuses is checked
 * against the key as it is now before the call is refused.
 */
async function authenticate(request: FastifyRequest, deps: GatewayDeps, read: 'cached' | 'fresh'): Promise<PresentedKey> {
  const value = request.headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const key = value ? await (read === 'cached' ? cachedKey : freshKey)(deps.db, value) : undefined;
  if (!key || !value) throw gatewayErrors.invalidKey();
  const origin = request.headers.origin;
  if (!originAllowed(key.allowedOrigins, origin)) {
    if (read === 'cached') return authenticate(request, deps, 'fresh');
    throw gatewayErrors.originNotAllowed(origin);
  }
  return { key, value };
}

/** Within the key's request rate. */
async function withinRate(deps: GatewayDeps, key: GatewayKey) {
  const retryAfter = await consumeKeyRate(deps.db, key.id, deps.rateLimitPerMinute, new Date());
  if (retryAfter) throw gatewayErrors.rateLimited(retryAfter);
}

/**
 * The checks between authentication from this instance's copy of the key and admission: a call
 * they refuse is answered as it would be from the key as it is now (401 for a key deleted since,
 * 403 for an origin removed since) before their own error.
 */
async function refusedOnlyIfKeyStands<T>(request: FastifyRequest, deps: GatewayDeps, checks: () => Promise<T>): Promise<T> {
  try {
    return await checks();
  } catch (error) {
    await authenticate(request, deps, 'fresh');
    throw error;
  }
}

type AdmitRequest = { price: ModelPrice; worst: WorstCase };

/** Admission for the presented key; a key that changed since it was read is read again and checked afresh. */
async function admitCall(request: FastifyRequest, deps: GatewayDeps, presented: PresentedKey, call: AdmitRequest) {
  for (let attempt = 0; ; attempt++) {
    try {
      const admission = await admit(deps.db, {
        presented,
        prices: call.price,
        inputTokens: call.worst.inputTokens,
        choices: call.worst.choices,
        requestedMaxTokens: call.worst.maxTokens,
        maxOutputTokens: call.price.maxOutputTokens,
        now: new Date(),
        reservationTtlMs: deps.reservationTtlMs,
      });
      return { key: presented.key, admission };
    } catch (error) {
      if (error instanceof Refusal) throw error.reason === 'credit' ? gatewayErrors.insufficientCredit() : gatewayErrors.budgetExceeded();
      if (!(error instanceof StaleKey)) throw error;
      // Changing again between our reads and admission, repeatedly: treat as gone.
      if (attempt === 2) throw gatewayErrors.invalidKey();
      presented = await authenticate(request, deps, 'fresh');
    }
  }
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
 * The provider sees the limit that was reserved, under every name the client used (max_tokens
 * when it used none): whichever name the provider honours, it cannot produce more than was held.
 */
function capped(body: ChatBody, admission: Admission): ChatBody {
  const named = (['max_tokens', 'max_completion_tokens'] as const).filter((field) => body[field] != null);
  const limits = Object.fromEntries((named.length ? named : ['max_tokens']).map((field) => [field, admission.maxTokens]));
  return { ...body, ...limits };
}

export function chatCompletionRoutes(app: FastifyInstance, deps: GatewayDeps) {
  app.get('/models', { helmet: false }, async (request) => {
    const { key } = await authenticate(request, deps, 'fresh');
    await withinRate(deps, key);
    return {
      object: 'list',
      data: [...deps.pricing.models.values()].map((model) => ({ id: model.id, object: 'model', created: 0, owned_by: 'meterway' })),
    };
  });

  app.post('/chat/completions', { bodyLimit: 1024 * 1024, helmet: false }, async (request, reply) => {
    const presented = await authenticate(request, deps, 'cached');
    const { body, price, worst } = await refusedOnlyIfKeyStands(request, deps, async () => {
      await withinRate(deps, presented.key);
      const body = parseBody(request.body);
      const price = deps.pricing.models.get(body.model);
      if (!price) throw gatewayErrors.unknownModel(body.model);
      return { body, price, worst: worstCaseOf(body, price) };
    });
    const admittedAt = Date.now();
    const { key, admission } = await admitCall(request, deps, presented, { price, worst });
    const call = { key, admittedAt, completionId: `chatcmpl-${randomUUID()}`, admission, price, estimatedInputTokens: worst.inputTokens, choices: worst.choices, model: body.model };
    return body.stream ? streamCompletion(reply, deps, capped(body, admission), call, deps.idleTimeoutMs) : complete(reply, deps, capped(body, admission), call);
  });
}

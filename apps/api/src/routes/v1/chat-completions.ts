import { randomUUID } from 'node:crypto';
import { chatRequestSchema } from '@meterway/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '@meterway/db';
import { admit, type Admission } from '../../domain/metering/admission.js';
import { type PresentedKey, Refusal, StaleKey } from '../../domain/metering/admit-calls.js';
import { type GatewayKey, originAllowed } from '../../domain/metering/find-key.js';
import { cachedKey, freshKey } from '../../domain/metering/key-cache.js';
import { consumeKeyRate } from '../../domain/metering/key-rate-limit.js';
import { type Metered, release, settleAfterAnswer } from '../../domain/metering/settlement.js';
import { maxNesting, nestsDeeperThan } from '../../gateway/nesting.js';
import { gatewayErrors } from '../../gateway/openai-error.js';
import type { ModelPrice, Pricing } from '../../gateway/pricing.js';
import { type ChatBody, type ModelProvider, type Usage, UpstreamTimeout } from '../../gateway/providers/model-provider.js';
import { countTextTokens } from '../../gateway/tokenize.js';
import { type WorstCase, worstCaseOf } from '../../gateway/worst-case.js';

export type GatewayDeps = {
  db: Database;
  pricing: Pricing;
  provider: ModelProvider;
  rateLimitPerMinute: number;
  reservationTtlMs: number;
};

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
    const { key, admission } = await admitCall(request, deps, presented, { price, worst });
    const call = { key, completionId: `chatcmpl-${randomUUID()}`, admission, price, estimatedInputTokens: worst.inputTokens, model: body.model };
    return body.stream ? streamCompletion(reply, deps, capped(body, admission), call) : complete(reply, deps, capped(body, admission), call);
  });
}

type Call = { key: GatewayKey; completionId: string; admission: Admission; price: ModelPrice; estimatedInputTokens: number; model: string };

/** What the call is charged for: what the provider reports, or, when it reports nothing, our own count (flagged). */
function metered(deps: GatewayDeps, call: Call, usage: Usage | undefined, text: string): Metered {
  return {
    reservationId: call.admission.reservationId,
    organizationId: call.key.organizationId,
    publishableKeyId: call.key.id,
    periodStart: call.admission.periodStart,
    completionId: call.completionId,
    model: call.model,
    estimatedInputTokens: call.estimatedInputTokens,
    inputTokens: usage?.promptTokens ?? call.estimatedInputTokens,
    cachedInputTokens: usage?.cachedTokens ?? 0,
    outputTokens: usage?.completionTokens ?? countTextTokens(text),
    usageEstimated: !usage,
    prices: call.price,
    priceVersion: deps.pricing.version,
    now: new Date(),
  };
}

/**
 * Settles once the answer is out, so the client does not wait for it. This instance's next
 * admission for the organisation waits for it instead (admission.ts); if it fails, the call goes
 * uncharged and its hold expires. A charge above the hold is never silent: it is logged here.
 */
function meter(reply: FastifyReply, deps: GatewayDeps, call: Call, usage: Usage | undefined, text: string) {
  settleAfterAnswer(
    deps.db,
    metered(deps, call, usage, text),
    (settled) => {
      if (!settled || settled.overHoldNanos === 0n) return;
      const { overHoldNanos, unpaidNanos } = settled;
      reply.log.warn(
        { completionId: call.completionId, model: call.model, reservedNanos: String(call.admission.reservedNanos), overHoldNanos: String(overHoldNanos), unpaidNanos: String(unpaidNanos) },
        'the provider reported more than the call held; charged from free credit',
      );
    },
    (error) => reply.log.error({ err: error, completionId: call.completionId }, 'settling a call failed; it goes uncharged and its reservation will expire'),
  );
}

async function complete(reply: FastifyReply, deps: GatewayDeps, body: ChatBody, call: Call) {
  const abort = new AbortController();
  // The response closing before it was written means the client went away.
  reply.raw.once('close', () => {
    if (!reply.raw.writableEnded) abort.abort();
  });
  let result;
  try {
    result = await deps.provider.complete(body, abort.signal);
  } catch (error) {
    await release(deps.db, [call.admission.reservationId]);
    throw error instanceof UpstreamTimeout ? gatewayErrors.upstreamTimeout() : gatewayErrors.upstream();
  }
  meter(reply, deps, call, result.usage, result.text);
  return { ...result.body, id: call.completionId };
}

async function streamCompletion(reply: FastifyReply, deps: GatewayDeps, body: ChatBody, call: Call) {
  const abort = new AbortController();
  const wantsUsage = body.stream_options?.include_usage === true;
  let text = '';
  let usage: Usage | undefined;
  let started = false;
  const clientGone = () => {
    if (!reply.raw.writableEnded) abort.abort();
  };
  reply.raw.once('close', clientGone);
  try {
    for await (const piece of deps.provider.stream(body, abort.signal)) {
      if (!started) {
        started = true;
        reply.hijack();
        reply.raw.writeHead(200, {
          ...(reply.getHeaders() as Record<string, string>),
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
        });
      }
      text += piece.text;
      if (piece.usage) usage = piece.usage;
      // The usage chunk is forced upstream for metering; the client gets it only if it asked.
      if (piece.usage && !wantsUsage && Array.isArray(piece.chunk.choices) && piece.chunk.choices.length === 0) continue;
      if (!reply.raw.destroyed) {
        // Events that arrived together leave together: one write to the socket per turn, not per event.
        reply.raw.cork();
        reply.raw.write(`data: ${JSON.stringify({ ...piece.chunk, id: call.completionId })}\n\n`);
        process.nextTick(() => reply.raw.uncork());
      }
    }
  } catch (error) {
    if (!started) {
      await release(deps.db, [call.admission.reservationId]);
      throw error instanceof UpstreamTimeout ? gatewayErrors.upstreamTimeout() : gatewayErrors.upstream();
    }
    // Bytes were delivered: what was produced is charged, and the stream ends with an error event.
    const failure = error instanceof UpstreamTimeout ? gatewayErrors.upstreamTimeout() : gatewayErrors.upstream();
    if (!reply.raw.destroyed) reply.raw.write(`data: ${JSON.stringify(failure.body())}\n\n`);
  } finally {
    reply.raw.off('close', clientGone);
  }
  if (!started) {
    reply.hijack();
    reply.raw.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), 'content-type': 'text/event-stream; charset=utf-8' });
  }
  if (!reply.raw.destroyed) reply.raw.end('data: [DONE]\n\n');
  // A client that left mid-stream pays for what was produced up to then (our own count).
  meter(reply, deps, call, abort.signal.aborted ? undefined : usage, text);
}

import { randomUUID } from 'node:crypto';
import { chatRequestSchema } from '@meterway/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '@meterway/db';
import { admit, type Admission, Refusal } from '../../domain/metering/admission.js';
import { type GatewayKey, originAllowed } from '../../domain/metering/find-key.js';
import { lookUpKey } from '../../domain/metering/look-up-key.js';
import { consumeKeyRate } from '../../domain/metering/key-rate-limit.js';
import { release, settle } from '../../domain/metering/settlement.js';
import { maxNesting, nestsDeeperThan } from '../../gateway/nesting.js';
import { gatewayErrors } from '../../gateway/openai-error.js';
import type { ModelPrice, Pricing } from '../../gateway/pricing.js';
import { type ChatBody, type ModelProvider, type Usage, UpstreamTimeout } from '../../gateway/providers/model-provider.js';
import { countTextTokens, estimateInputTokens } from '../../gateway/tokenize.js';

export type GatewayDeps = {
  db: Database;
  pricing: Pricing;
  provider: ModelProvider;
  rateLimitPerMinute: number;
  reservationTtlMs: number;
};

/** Who may call: a live key, from one of its origins, within its request rate. */
async function authorize(request: FastifyRequest, deps: GatewayDeps): Promise<GatewayKey> {
  const value = request.headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const key = value ? await lookUpKey(deps.db, value) : undefined;
  if (!key) throw gatewayErrors.invalidKey();
  const origin = request.headers.origin;
  if (!originAllowed(key.allowedOrigins, origin)) throw gatewayErrors.originNotAllowed(origin);
  const retryAfter = await consumeKeyRate(deps.db, key.id, deps.rateLimitPerMinute, new Date());
  if (retryAfter) throw gatewayErrors.rateLimited(retryAfter);
  return key;
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

/** The provider sees the cap the budget and credit can pay, under the name the client used. */
function capped(body: ChatBody, admission: Admission): ChatBody {
  const field = body.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens';
  return { ...body, [field]: admission.maxTokens };
}

export function chatCompletionRoutes(app: FastifyInstance, deps: GatewayDeps) {
  app.get('/models', { helmet: false }, async (request) => {
    await authorize(request, deps);
    return {
      object: 'list',
      data: [...deps.pricing.models.values()].map((model) => ({ id: model.id, object: 'model', created: 0, owned_by: 'meterway' })),
    };
  });

  app.post('/chat/completions', { bodyLimit: 1024 * 1024, helmet: false }, async (request, reply) => {
    const key = await authorize(request, deps);
    const body = parseBody(request.body);
    const price = deps.pricing.models.get(body.model);
    if (!price) throw gatewayErrors.unknownModel(body.model);
    const estimatedInputTokens = estimateInputTokens(body.messages);
    let admission: Admission;
    try {
      admission = await admit(deps.db, { key, prices: price, inputTokens: estimatedInputTokens, requestedMaxTokens: body.max_completion_tokens ?? body.max_tokens, now: new Date(), reservationTtlMs: deps.reservationTtlMs });
    } catch (error) {
      if (error instanceof Refusal) throw error.reason === 'credit' ? gatewayErrors.insufficientCredit() : gatewayErrors.budgetExceeded();
      throw error;
    }
    const call = { key, completionId: `chatcmpl-${randomUUID()}`, admission, price, estimatedInputTokens, model: body.model };
    return body.stream ? streamCompletion(reply, deps, capped(body, admission), call) : complete(reply, deps, capped(body, admission), call);
  });
}

type Call = { key: GatewayKey; completionId: string; admission: Admission; price: ModelPrice; estimatedInputTokens: number; model: string };

/**
 * Charges what the provider reports, or, when it reports nothing, our own count (flagged). Done
 * before the answer is released: a client's next call must find this one's reservation gone, or
 * a call that names no max_tokens (and so holds all it could pay) would refuse the next.
 */
function meter(deps: GatewayDeps, call: Call, usage: Usage | undefined, text: string) {
  return settle(deps.db, {
    reservationId: call.admission.reservationId,
    organizationId: call.key.organizationId,
    publishableKeyId: call.key.id,
    periodStart: call.admission.periodStart,
    completionId: call.completionId,
    model: call.model,
    estimatedInputTokens: call.estimatedInputTokens,
    inputTokens: usage?.promptTokens ?? call.estimatedInputTokens,
    outputTokens: usage?.completionTokens ?? countTextTokens(text),
    usageEstimated: !usage,
    prices: call.price,
    now: new Date(),
  });
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
    await release(deps.db, call.admission.reservationId);
    throw error instanceof UpstreamTimeout ? gatewayErrors.upstreamTimeout() : gatewayErrors.upstream();
  }
  await meter(deps, call, result.usage, result.text);
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
      if (!reply.raw.destroyed) reply.raw.write(`data: ${JSON.stringify({ ...piece.chunk, id: call.completionId })}\n\n`);
    }
  } catch (error) {
    if (!started) {
      await release(deps.db, call.admission.reservationId);
      throw error instanceof UpstreamTimeout ? gatewayErrors.upstreamTimeout() : gatewayErrors.upstream();
    }
    // Bytes were delivered: what was produced is charged, and the stream ends with an error event.
    const failure = error instanceof UpstreamTimeout ? gatewayErrors.upstreamTimeout() : gatewayErrors.upstream();
    if (!reply.raw.destroyed) reply.raw.write(`data: ${JSON.stringify(failure.body())}\n\n`);
  } finally {
    reply.raw.off('close', clientGone);
  }
  // A client that left mid-stream pays for what was produced up to then (our own count).
  try {
    await meter(deps, call, abort.signal.aborted ? undefined : usage, text);
  } catch (error) {
    // The answer is out and cannot turn into an error (nor be left hanging): it goes uncharged and its hold expires.
    if (!started) throw error;
    reply.log.error({ err: error, completionId: call.completionId }, 'settling a streamed call failed; its reservation will expire');
  }
  if (!started) {
    reply.hijack();
    reply.raw.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), 'content-type': 'text/event-stream; charset=utf-8' });
  }
  if (!reply.raw.destroyed) reply.raw.end('data: [DONE]\n\n');
}

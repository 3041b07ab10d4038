import { randomUUID } from 'node:crypto';
import { chatRequestSchema } from '@meterway/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '@meterway/db';
import { admit, type Admission } from '../../domain/metering/admission.js';
import { type PresentedKey, Refusal, StaleKey } from '../../domain/metering/admit-calls.js';
import { type GatewayKey, originAllowed } from '../../domain/metering/find-key.js';
import { cachedKey, freshKey } from '../../domain/metering/key-cache.js';
import { consumeKeyRate } from '../../domain/metering/key-rate-limit.js';
import { markForwarded } from '../../domain/metering/forwarded.js';
import { type Metered, release, settleAfterAnswer } from '../../domain/metering/settlement.js';
import { maxNesting, nestsDeeperThan } from '../../gateway/nesting.js';
import { gatewayErrors } from '../../gateway/openai-error.js';
import type { ModelPrice, Pricing } from '../../gateway/pricing.js';
import { type ChatBody, type ModelProvider, type Usage, UpstreamFailure, UpstreamTimeout } from '../../gateway/providers/model-provider.js';
import { countTextTokens } from '../../gateway/tokenize.js';
import { type WorstCase, worstCaseOf } from '../../gateway/worst-case.js';

export type GatewayDeps = {
  db: Database;
  pricing: Pricing;
  provider: ModelProvider;
  rateLimitPerMinute: number;
  reservationTtlMs: number;
  /** How long a streaming client may take nothing before it is cut off (UPSTREAM_IDLE_TIMEOUT_MS). */
  idleTimeoutMs: number;
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
    const admittedAt = Date.now();
    const { key, admission } = await admitCall(request, deps, presented, { price, worst });
    const call = { key, admittedAt, completionId: `chatcmpl-${randomUUID()}`, admission, price, estimatedInputTokens: worst.inputTokens, choices: worst.choices, model: body.model };
    return body.stream ? streamCompletion(reply, deps, capped(body, admission), call, deps.idleTimeoutMs) : complete(reply, deps, capped(body, admission), call);
  });
}

type Call = {
  key: GatewayKey;
  completionId: string;
  admission: Admission;
  /** Epoch ms when the call was admitted, which its hold's lifetime counts from. */
  admittedAt: number;
  price: ModelPrice;
  estimatedInputTokens: number;
  choices: number;
  model: string;
};

/**
 * What a call is charged from: the usage the provider reported; our own count of the input and of
 * what we saw produced, when a finished answer reported none; or, when the provider had the request
 * and its answer never finished (a timeout, a cut connection, the call's deadline), everything that
 * was reserved, since the provider may bill all of it. The last two are flagged as estimated.
 */
type Charge = { reported: Usage } | { counted: string } | 'reserved';

function metered(deps: GatewayDeps, call: Call, charge: Charge): Metered {
  const tokens =
    charge === 'reserved'
      ? { promptTokens: call.estimatedInputTokens, cachedTokens: 0, completionTokens: call.admission.maxTokens * call.choices }
      : 'reported' in charge
        ? charge.reported
        : { promptTokens: call.estimatedInputTokens, cachedTokens: 0, completionTokens: countTextTokens(charge.counted) };
  return {
    reservationId: call.admission.reservationId,
    organizationId: call.key.organizationId,
    publishableKeyId: call.key.id,
    periodStart: call.admission.periodStart,
    completionId: call.completionId,
    model: call.model,
    estimatedInputTokens: call.estimatedInputTokens,
    inputTokens: tokens.promptTokens,
    cachedInputTokens: tokens.cachedTokens,
    outputTokens: tokens.completionTokens,
    usageEstimated: charge === 'reserved' || !('reported' in charge),
    prices: call.price,
    priceVersion: deps.pricing.version,
    now: new Date(),
  };
}

/**
 * Settles once the answer is out, so the client does not wait for it. This instance's next
 * admission for the organisation waits for it instead (admission.ts). A failed settlement is
 * retried until three quarters of the hold's lifetime from admission (a hold taken from a stock
 * has at least that left); a charge above the hold is never silent: both are logged here.
 */
function meter(reply: FastifyReply, deps: GatewayDeps, call: Call, charge: Charge, forwarded: Forwarded) {
  const log = { completionId: call.completionId, model: call.model };
  settleAfterAnswer(deps.db, metered(deps, call, charge), {
    retryUntil: call.admittedAt + (deps.reservationTtlMs * 3) / 4,
    onSettled: (settled) => {
      forwarded.done();
      if (!settled || settled.overHoldNanos === 0n) return;
      const { overHoldNanos, unpaidNanos } = settled;
      reply.log.warn(
        { ...log, reservedNanos: String(call.admission.reservedNanos), overHoldNanos: String(overHoldNanos), unpaidNanos: String(unpaidNanos) },
        'the provider reported more than the call held; charged from free credit',
      );
    },
    onRetry: (error) => reply.log.warn({ ...log, err: error }, 'settling a call failed; trying again'),
    onError: (error) => reply.log.error({ ...log, err: error }, 'settling a call failed for good; it goes uncharged and its reservation will expire'),
  });
}

/**
 * The call is about to reach the provider: its hold records so soon after, for the sweeper, should
 * this instance stop before settling it. Answers what to call once it is settled or given back.
 */
function forwarding(reply: FastifyReply, deps: GatewayDeps, call: Call): Forwarded {
  const done = markForwarded(deps.db, metered(deps, call, 'reserved'), (error) =>
    reply.log.warn({ err: error, completionId: call.completionId }, 'recording that a call was forwarded failed; a crash before its settlement would leave it uncharged'),
  );
  return { done };
}

type Forwarded = { done: () => void };

/**
 * A failed call: given back when the provider cannot bill it (an error status, never reached),
 * else charged what was reserved. Answered as a timeout or a provider failure, saying which.
 */
async function failed(reply: FastifyReply, deps: GatewayDeps, call: Call, forwarded: Forwarded, error: unknown, deadline: AbortSignal) {
  const billable = deadline.aborted || (error instanceof UpstreamFailure && error.billable);
  if (billable) {
    meter(reply, deps, call, 'reserved', forwarded);
  } else {
    forwarded.done();
    await release(deps.db, [call.admission.reservationId]);
  }
  return error instanceof UpstreamTimeout || deadline.aborted ? gatewayErrors.upstreamTimeout(billable) : gatewayErrors.upstream(billable);
}

/**
 * The whole call must end within half its hold's lifetime (a hold taken from a stock has at least
 * three quarters of it left), so it is settled before its hold could expire and be swept.
 */
function deadlineFor(deps: GatewayDeps): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deps.reservationTtlMs / 2);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** A client that went away does not stop the call: the provider bills it anyway, so its answer is read to the end and charged. */
async function complete(reply: FastifyReply, deps: GatewayDeps, body: ChatBody, call: Call) {
  const deadline = deadlineFor(deps);
  const forwarded = forwarding(reply, deps, call);
  try {
    const result = await deps.provider.complete(body, deadline.signal);
    meter(reply, deps, call, result.usage ? { reported: result.usage } : { counted: result.text }, forwarded);
    return { ...result.body, id: call.completionId };
  } catch (error) {
    throw await failed(reply, deps, call, forwarded, error, deadline.signal);
  } finally {
    deadline.clear();
  }
}

/** Waits until the client has taken what was written, or has gone; false if it took none of it within `ms`. */
function drained(reply: FastifyReply, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (value: boolean) => {
      clearTimeout(timer);
      reply.raw.off('drain', onDrain).off('close', onClose);
      resolve(value);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    reply.raw.once('drain', onDrain).once('close', onClose);
  });
}

function startEvents(reply: FastifyReply) {
  reply.hijack();
  reply.raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
}

/**
 * Streams the provider's events to the client, at the client's pace: when it stops taking them
 * (for as long as the provider may go quiet), it is cut off, and the stream, like one whose client
 * left, is still read to its end for the provider's usage, which is what the call is charged.
 */
async function streamCompletion(reply: FastifyReply, deps: GatewayDeps, body: ChatBody, call: Call, idleTimeoutMs: number) {
  const deadline = deadlineFor(deps);
  const wantsUsage = body.stream_options?.include_usage === true;
  let text = '';
  let usage: Usage | undefined;
  let started = false;
  const listening = () => !reply.raw.destroyed;
  const forwarded = forwarding(reply, deps, call);
  try {
    for await (const piece of deps.provider.stream(body, deadline.signal)) {
      if (!started) {
        started = true;
        startEvents(reply);
      }
      text += piece.text;
      if (piece.usage) usage = piece.usage;
      // The usage chunk is forced upstream for metering; the client gets it only if it asked.
      if (piece.usage && !wantsUsage && Array.isArray(piece.chunk.choices) && piece.chunk.choices.length === 0) continue;
      if (!listening()) continue;
      // Events that arrived together leave together: one write to the socket per turn, not per event.
      reply.raw.cork();
      const flowing = reply.raw.write(`data: ${JSON.stringify({ ...piece.chunk, id: call.completionId })}\n\n`);
      process.nextTick(() => reply.raw.uncork());
      if (!flowing && !(await drained(reply, idleTimeoutMs))) reply.raw.destroy();
    }
  } catch (error) {
    if (!started) throw await failed(reply, deps, call, forwarded, error, deadline.signal);
    // Bytes were delivered: the call is charged, and the stream ends with an error event.
    const failure = await failed(reply, deps, call, forwarded, error, deadline.signal);
    if (listening()) reply.raw.write(`data: ${JSON.stringify(failure.body())}\n\n`);
    if (listening()) reply.raw.end('data: [DONE]\n\n');
    return;
  } finally {
    deadline.clear();
  }
  if (!started) startEvents(reply);
  // Cut by its deadline before the usage came: the provider may bill all that was reserved.
  const cut = deadline.signal.aborted && !usage;
  if (cut && listening()) reply.raw.write(`data: ${JSON.stringify(gatewayErrors.upstreamTimeout(true).body())}\n\n`);
  if (listening()) reply.raw.end('data: [DONE]\n\n');
  meter(reply, deps, call, usage ? { reported: usage } : cut ? 'reserved' : { counted: text }, forwarded);
}

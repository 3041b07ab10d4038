import type { FastifyReply } from 'fastify';
import type { Admission } from '../../domain/metering/admission.js';
import type { GatewayKey } from '../../domain/metering/find-key.js';
import { markForwarded } from '../../domain/metering/forwarded.js';
import { type Metered, release, settleAfterAnswer } from '../../domain/metering/settlement.js';
import { gatewayErrors } from '../../gateway/openai-error.js';
import type { ModelPrice } from '../../gateway/pricing.js';
import { type ChatBody, type Usage, UpstreamFailure, UpstreamTimeout } from '../../gateway/providers/model-provider.js';
import { countTextTokens } from '../../gateway/tokenize.js';
import type { GatewayDeps } from './gateway-deps.js';

// An admitted call, from the moment it goes to the provider to its charge: forwarded, answered or
// streamed to the client at its pace, and settled, whatever the client, the provider or this
// instance does meanwhile.

export type Call = {
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
export async function complete(reply: FastifyReply, deps: GatewayDeps, body: ChatBody, call: Call) {
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
export async function streamCompletion(reply: FastifyReply, deps: GatewayDeps, body: ChatBody, call: Call, idleTimeoutMs: number) {
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

import type { Admission } from '../domain/metering/admission.js';
import type { Caller } from '../domain/metering/allowances.js';
import type { GatewayKey } from '../domain/metering/find-key.js';
import type { Metered } from '../domain/metering/settlement.js';
import type { CallLog, Gateway } from './gateway.js';
import { gatewayErrors } from './openai-error.js';
import type { ModelPrice } from './pricing.js';
import { type Attempt, type ChatBody, type Usage, UpstreamFailure, UpstreamTimeout } from './providers/model-provider.js';
import { appendProduced, type ProducedText } from './providers/billable-output.js';
import { countTextTokens } from './tokenize.js';

/** The output tokens of what a provider produced, each of its texts counted on its own, as the provider tokenizes them. */
const countProduced = (produced: ProducedText) => Object.values(produced).reduce((sum, text) => sum + countTextTokens(text), 0);

// An admitted call, from the moment it goes to the provider to its charge: forwarded, answered or
// streamed to the client at its pace, and settled, whatever the client, the provider or this
// instance does meanwhile.

export type Call = {
  key: GatewayKey;
  caller: Caller;
  completionId: string;
  admission: Admission;
  /** Epoch ms when the call was admitted, which its hold's lifetime counts from. */
  admittedAt: number;
  price: ModelPrice;
  estimatedInputTokens: number;
  choices: number;
  model: string;
  /** The provider that has the call: the first its model's route names, then whichever took it over (hearAttempt). */
  provider: string;
  log: CallLog;
};

/**
 * The client's end of a streamed answer, as the transport holds it: events go out at the client's
 * pace, and a client that takes nothing for the idle timeout is cut off.
 */
export type EventClient = {
  /** Answers 200 with an event stream; before the first event. */
  open: () => void;
  /** Whether the client is still there to take events. */
  listening: () => boolean;
  /** Writes one event's data; false when the client has not yet taken what was written. */
  send: (data: string) => boolean;
  /** Until the client took what was written, or has gone, or was cut off for taking nothing within the idle timeout. */
  caughtUp: () => Promise<void>;
  /** Writes the last data and ends the stream. */
  end: (data: string) => void;
};

/**
 * What a call is charged from: the usage the provider reported; our own count of the input and of
 * what we saw produced, when a finished answer reported none; or, when the provider had the request
 * and its answer never finished (a timeout, a cut connection, the call's deadline) or produced what
 * cannot be counted as text (audio), everything that was reserved, since the provider may bill all
 * of it. The last two are flagged as estimated.
 */
type Charge = { reported: Usage } | { counted: ProducedText } | 'reserved';

function metered(gateway: Gateway, call: Call, charge: Charge): Metered {
  const tokens =
    charge === 'reserved'
      ? { promptTokens: call.estimatedInputTokens, cachedTokens: 0, completionTokens: call.admission.maxTokens * call.choices }
      : 'reported' in charge
        ? charge.reported
        : { promptTokens: call.estimatedInputTokens, cachedTokens: 0, completionTokens: countProduced(charge.counted) };
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
    priceVersion: gateway.pricing.version,
    provider: call.provider,
    caller: call.caller,
    now: new Date(),
  };
}

/**
 * Each try at a provider, for a call routed to several: counted, a failed one logged with whether
 * the next provider takes the call over, and the provider that served or failed it kept for its row.
 */
function hearAttempt(gateway: Gateway, call: Call) {
  return (attempt: Attempt) => {
    gateway.metrics.providerAttempt(attempt.provider, attempt.outcome);
    if (attempt.outcome === 'skipped') return;
    call.provider = attempt.provider;
    if (attempt.outcome === 'failed') {
      const { failure, fallsBack } = attempt;
      call.log.warn(
        {
          completionId: call.completionId,
          model: call.model,
          provider: attempt.provider,
          status: failure.status,
          billable: failure.billable,
          fallsBack,
          reason: failure.message,
        },
        fallsBack ? 'a model provider failed before it could bill the call; the next provider takes it over' : 'a model provider failed',
      );
    }
  };
}

type Forwarded = { done: () => void };

/**
 * The call is about to reach the provider: its hold records so soon after, for the sweeper, should
 * this instance stop before settling it. Answers what to call once it is settled or given back.
 */
function forwarding(gateway: Gateway, call: Call): Forwarded {
  const done = gateway.meter.forwarding(
    () => metered(gateway, call, 'reserved'),
    (error) =>
      call.log.warn(
        { err: error, completionId: call.completionId },
        'recording that a call was forwarded failed; a crash before its settlement would leave it uncharged',
      ),
  );
  return { done };
}

/**
 * Settles once the answer is out, so the client does not wait for it. This instance's next
 * admission for the organisation waits for it instead (admission.ts). A failed settlement is
 * retried until three quarters of the hold's lifetime from admission (a hold taken from a stock
 * has at least that left); a charge above the hold is never silent: both are logged here.
 */
function settle(gateway: Gateway, call: Call, charge: Charge, forwarded: Forwarded) {
  const log = { completionId: call.completionId, model: call.model };
  const charged = metered(gateway, call, charge);
  gateway.meter.settle(charged, {
    retryUntil: call.admittedAt + (gateway.reservationTtlMs * 3) / 4,
    onSettled: (settled) => {
      forwarded.done();
      gateway.metrics.holdDone();
      // Undefined: the sweeper had already charged the hold, and counts nothing.
      if (settled) gateway.metrics.charged(call.model, charged.inputTokens, charged.outputTokens, settled.totalNanos, settled.overHoldNanos > 0n);
      if (!settled || settled.overHoldNanos === 0n) return;
      const { overHoldNanos, unpaidNanos } = settled;
      call.log.warn(
        { ...log, reservedNanos: String(call.admission.reservedNanos), overHoldNanos: String(overHoldNanos), unpaidNanos: String(unpaidNanos) },
        'the provider reported more than the call held; charged from free credit',
      );
    },
    onRetry: (error) => call.log.warn({ ...log, err: error }, 'settling a call failed; trying again'),
    onError: (error) => {
      gateway.metrics.holdDone();
      call.log.error({ ...log, err: error }, 'settling a call failed for good; it goes uncharged and its reservation will expire');
    },
  });
}

/**
 * A failed call: given back when the provider cannot bill it (an error status, never reached),
 * else charged what was reserved. Answered as a timeout or a provider failure, saying which.
 */
async function failed(gateway: Gateway, call: Call, forwarded: Forwarded, error: unknown, deadline: AbortSignal) {
  const billable = deadline.aborted || (error instanceof UpstreamFailure && error.billable);
  if (billable) {
    settle(gateway, call, 'reserved', forwarded);
  } else {
    forwarded.done();
    gateway.metrics.holdDone();
    await gateway.meter.release({ organizationId: call.key.organizationId, id: call.admission.reservationId });
  }
  return error instanceof UpstreamTimeout || deadline.aborted ? gatewayErrors.upstreamTimeout(billable) : gatewayErrors.upstream(billable);
}

/**
 * The whole call must end within half its hold's lifetime (a hold taken from a stock has at least
 * three quarters of it left), so it is settled before its hold could expire and be swept.
 */
function deadlineFor(gateway: Gateway): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), gateway.reservationTtlMs / 2);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** A client that went away does not stop the call: the provider bills it anyway, so its answer is read to the end and charged. */
export async function complete(gateway: Gateway, body: ChatBody, call: Call) {
  const deadline = deadlineFor(gateway);
  const forwarded = forwarding(gateway, call);
  const sentAt = performance.now();
  try {
    const result = await gateway.provider.complete(body, deadline.signal, hearAttempt(gateway, call));
    settle(gateway, call, result.usage ? { reported: result.usage } : result.uncountable ? 'reserved' : { counted: result.produced }, forwarded);
    return { ...result.body, id: call.completionId };
  } catch (error) {
    throw await failed(gateway, call, forwarded, error, deadline.signal);
  } finally {
    gateway.metrics.upstreamTotal((performance.now() - sentAt) / 1000);
    deadline.clear();
  }
}

/**
 * Streams the provider's events to the client, at the client's pace: when it stops taking them it
 * is cut off (EventClient), and the stream, like one whose client left, is still read to its end
 * for the provider's usage, which is what the call is charged.
 */
export async function stream(gateway: Gateway, body: ChatBody, call: Call, client: EventClient): Promise<undefined> {
  const deadline = deadlineFor(gateway);
  const wantsUsage = body.stream_options?.include_usage === true;
  const produced: ProducedText = {};
  let uncountable = false;
  let usage: Usage | undefined;
  let started = false;
  const forwarded = forwarding(gateway, call);
  const sentAt = performance.now();
  try {
    for await (const piece of gateway.provider.stream(body, deadline.signal, hearAttempt(gateway, call))) {
      if (!started) {
        started = true;
        client.open();
      }
      appendProduced(produced, piece.produced);
      uncountable ||= piece.uncountable === true;
      if (piece.usage) usage = piece.usage;
      // The usage chunk is forced upstream for metering; the client gets it only if it asked.
      if (piece.usage && !wantsUsage && Array.isArray(piece.chunk.choices) && piece.chunk.choices.length === 0) continue;
      if (client.listening() && !client.send(JSON.stringify({ ...piece.chunk, id: call.completionId }))) await client.caughtUp();
    }
  } catch (error) {
    const failure = await failed(gateway, call, forwarded, error, deadline.signal);
    if (!started) throw failure;
    // Bytes were delivered: the call is charged, and the stream ends with an error event.
    if (client.listening()) client.send(JSON.stringify(failure.body()));
    if (client.listening()) client.end('[DONE]');
    return undefined;
  } finally {
    gateway.metrics.upstreamTotal((performance.now() - sentAt) / 1000);
    deadline.clear();
  }
  if (!started) client.open();
  // Cut by its deadline before the usage came: the provider may bill all that was reserved.
  const cut = deadline.signal.aborted && !usage;
  if (cut && client.listening()) client.send(JSON.stringify(gatewayErrors.upstreamTimeout(true).body()));
  if (client.listening()) client.end('[DONE]');
  settle(gateway, call, usage ? { reported: usage } : cut || uncountable ? 'reserved' : { counted: produced }, forwarded);
  return undefined;
}

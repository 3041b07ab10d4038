import type { ChatMessage } from '../tokenize.js';
import type { ProducedText } from './billable-output.js';

/** The OpenAI chat-completions request, as far as the gateway reads it; the rest passes through. */
export type ChatBody = {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  n?: number | null;
  stream?: boolean | null;
  stream_options?: Record<string, unknown>;
  [field: string]: unknown;
};

/** What the provider reported: input (with the cached part of it) and output tokens. */
export type Usage = { promptTokens: number; cachedTokens: number; completionTokens: number };

/**
 * What a provider produced, for counting when it reports no usage: its billable output as texts
 * (billable-output.ts), and whether some of it was not text and so cannot be counted from them.
 */
type Produced = { produced: ProducedText; uncountable?: boolean };

/** A finished completion: the provider's JSON to return, its usage if it said, what it produced. */
export type Completed = Produced & { body: Record<string, unknown>; usage?: Usage };

/** One streamed chunk: the provider's JSON to forward, what it adds, and usage if it carries it. */
export type Streamed = Produced & { chunk: Record<string, unknown>; usage?: Usage };

/**
 * One try at one provider, as a provider that routes a call to several reports it: `served` (it
 * answered, or its stream began), `failed` (with why, and whether the next provider is tried), or
 * `skipped` (its circuit breaker is open).
 */
export type Attempt =
  | { provider: string; outcome: 'served' }
  | { provider: string; outcome: 'failed'; failure: UpstreamFailure; fallsBack: boolean }
  | { provider: string; outcome: 'skipped' };

/**
 * A model provider: data plus small transforms (STYLE.md rule 13). Errors: UpstreamFailure for
 * anything the provider did wrong, UpstreamTimeout when it did not answer in time; either says
 * whether the provider may bill the call. One that routes calls to several providers tells
 * `onAttempt` of each try.
 */
export type ModelProvider = {
  /** The provider's id, which the usage rows record (`demo`, `upstream`, or its id in PROVIDERS_FILE). */
  name: string;
  /** The id of the provider a call for this model goes to first, for one that routes models to several. */
  nameFor?: (model: string) => string;
  complete: (body: ChatBody, signal: AbortSignal, onAttempt?: (attempt: Attempt) => void) => Promise<Completed>;
  stream: (body: ChatBody, signal: AbortSignal, onAttempt?: (attempt: Attempt) => void) => AsyncIterable<Streamed>;
  /** Lets go of the provider's connections (the app's close). */
  close?: () => Promise<void>;
};

/**
 * `billable`: the provider received the whole request and did not refuse it with an error status,
 * so it may bill the call although no usage came back. `status`: the error status it answered.
 */
export class UpstreamFailure extends Error {
  constructor(
    message: string,
    readonly billable = false,
    readonly status?: number,
  ) {
    super(message);
  }
}
export class UpstreamTimeout extends UpstreamFailure {}

/**
 * Whether another provider may take the call over: only when this one cannot bill it (it never had
 * the whole request, or refused it busy or broken: 429 or 5xx), so the call is paid to one provider
 * at most. A timeout after the provider had the request may be billed, and is not tried elsewhere;
 * a 4xx other than 429 is the request's fault, and would be refused elsewhere too.
 */
export function triesElsewhere(failure: UpstreamFailure): boolean {
  return !failure.billable && isProvidersFault(failure);
}

/** Whether the failure says the provider is unwell (unreachable, slow, busy, broken) rather than the request wrong (a 4xx other than 429). */
export function isProvidersFault(failure: UpstreamFailure): boolean {
  return failure.status === undefined || failure.status === 429 || failure.status >= 500;
}

type UsageJson =
  { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } | null } | null | undefined;

const count = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined);

/**
 * The usage a provider reported. Output is the larger of completion_tokens and total − prompt:
 * some OpenAI-compatible mappings leave thinking tokens out of completion_tokens but not the total.
 */
export function usageFrom(usage: UsageJson): Usage | undefined {
  const promptTokens = count(usage?.prompt_tokens);
  const completionTokens = count(usage?.completion_tokens);
  if (promptTokens === undefined || completionTokens === undefined) return undefined;
  const total = count(usage?.total_tokens) ?? 0;
  const cachedTokens = Math.min(count(usage?.prompt_tokens_details?.cached_tokens) ?? 0, promptTokens);
  return { promptTokens, cachedTokens, completionTokens: Math.max(completionTokens, total - promptTokens) };
}

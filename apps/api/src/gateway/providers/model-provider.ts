import type { ChatMessage } from '../tokenize.js';

/** The OpenAI chat-completions request, as far as the gateway reads it; the rest passes through. */
export type ChatBody = {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  stream?: boolean;
  stream_options?: Record<string, unknown>;
  [field: string]: unknown;
};

export type Usage = { promptTokens: number; completionTokens: number };

/** A finished completion: the provider's JSON to return, its usage if it said, the text produced. */
export type Completed = { body: Record<string, unknown>; usage?: Usage; text: string };

/** One streamed chunk: the provider's JSON to forward, the text it adds, and usage if it carries it. */
export type Streamed = { chunk: Record<string, unknown>; text: string; usage?: Usage };

/**
 * A model provider: data plus small transforms (STYLE.md rule 13). Errors: UpstreamFailure for
 * anything the provider did wrong, UpstreamTimeout when it did not answer in time.
 */
export type ModelProvider = {
  name: string;
  complete: (body: ChatBody, signal: AbortSignal) => Promise<Completed>;
  stream: (body: ChatBody, signal: AbortSignal) => AsyncIterable<Streamed>;
};

export class UpstreamFailure extends Error {}
export class UpstreamTimeout extends Error {}

type UsageJson = { prompt_tokens?: number; completion_tokens?: number } | null | undefined;

export const usageFrom = (usage: UsageJson): Usage | undefined =>
  usage && typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number'
    ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }
    : undefined;

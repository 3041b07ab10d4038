import OpenAI, { APIConnectionTimeoutError, APIUserAbortError } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { type ChatBody, type ModelProvider, UpstreamFailure, UpstreamTimeout, usageFrom } from './model-provider.js';

type Options = { baseUrl: string; apiKey?: string | undefined; timeoutMs: number; idleTimeoutMs: number };

function failure(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted) return error as Error;
  if (error instanceof APIConnectionTimeoutError) return new UpstreamTimeout('the model provider did not answer in time');
  return new UpstreamFailure(error instanceof Error ? error.message : 'the model provider failed');
}

/**
 * Any OpenAI-compatible provider at UPSTREAM_BASE_URL, through the official SDK. No retries: a
 * retried call could be billed twice upstream, and bytes already streamed cannot be taken back.
 * Streams always ask for usage (`stream_options.include_usage`), and stop when the provider goes
 * quiet for longer than the idle timeout.
 */
export function openAiCompatible(options: Options): ModelProvider {
  const client = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey ?? 'none', timeout: options.timeoutMs, maxRetries: 0 });
  return {
    name: 'openai-compatible',
    complete: async (body: ChatBody, signal) => {
      try {
        const completion = await client.chat.completions.create({ ...body, stream: false } as ChatCompletionCreateParamsNonStreaming, { signal });
        const text = completion.choices.map((choice) => choice.message?.content ?? '').join('');
        const usage = usageFrom(completion.usage);
        return { body: completion as unknown as Record<string, unknown>, text, ...(usage ? { usage } : {}) };
      } catch (error) {
        throw failure(error, signal);
      }
    },
    stream: async function* (body: ChatBody, signal) {
      const idle = new AbortController();
      const both = AbortSignal.any([signal, idle.signal]);
      let timer = setTimeout(() => idle.abort(), options.timeoutMs);
      try {
        const stream = await client.chat.completions.create(
          { ...body, stream: true, stream_options: { ...body.stream_options, include_usage: true } } as ChatCompletionCreateParamsStreaming,
          { signal: both },
        );
        for await (const chunk of stream) {
          clearTimeout(timer);
          timer = setTimeout(() => idle.abort(), options.idleTimeoutMs);
          const text = chunk.choices.map((choice) => choice.delta?.content ?? '').join('');
          const usage = usageFrom(chunk.usage);
          yield { chunk: chunk as unknown as Record<string, unknown>, text, ...(usage ? { usage } : {}) };
        }
      } catch (error) {
        if (idle.signal.aborted && !signal.aborted) throw new UpstreamTimeout('the model provider went quiet');
        if (error instanceof APIUserAbortError && signal.aborted) return;
        throw failure(error, signal);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

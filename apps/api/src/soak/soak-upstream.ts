import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { estimateInputTokens } from '../gateway/tokenize.js';

/**
 * - `ok`: answers at once (JSON, or a stream of a few chunks);
 * - `slow`: streams one chunk every `chunkDelayMs` (a JSON answer waits as long), so a call is long
 *   enough to kill an api or stop the database in;
 * - `hang`: reads the request and never answers;
 * - `stall`: streams two chunks, then goes quiet for ever;
 * - `greedy`: produces all of max_tokens and counts 5 input tokens more than the gateway estimated.
 */
export type SoakUpstreamMode = 'ok' | 'slow' | 'hang' | 'stall' | 'greedy';

/** One call the provider answered: what it reported as used, and whether it got to report it. */
export type UpstreamCall = { id: string; stream: boolean; maxTokens: number | undefined; promptTokens: number; completionTokens: number; usageSent: boolean };

const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];

/**
 * An OpenAI-compatible provider for the soak and fault suites. Every call gets an id that opens its
 * answer's text (so a client can tell which upstream call a gateway answer came from) and reports
 * usage that varies from call to call: at most `max_tokens` of output, and input tokens one below,
 * at or one above the gateway's estimate (a provider's tokenizer is not the gateway's).
 */
/** What the soak model bills for an image, per detail level; the soak price list says the same. */
export const soakImageTokens = { low: 85, high: 765 };

/** Images are billed per detail level. */
function imageTokensOf(messages: { content?: unknown }[]): number {
  const parts = messages.flatMap((message) =>
    Array.isArray(message.content) ? (message.content as { type?: string; image_url?: { detail?: string } }[]) : [],
  );
  return parts.filter((part) => part.type === 'image_url').reduce((sum, part) => sum + soakImageTokens[part.image_url?.detail === 'low' ? 'low' : 'high'], 0);
}

export async function startSoakUpstream(options: { chunkDelayMs?: number } = {}) {
  let mode: SoakUpstreamMode = 'ok';
  let counter = 0;
  const calls = new Map<string, UpstreamCall>();
  const open = new Set<ServerResponse>();

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let raw = '';
    for await (const chunk of request) raw += chunk;
    const body = JSON.parse(raw || '{}') as {
      model?: string;
      stream?: boolean;
      max_tokens?: number;
      max_completion_tokens?: number;
      n?: number;
      messages?: [];
    };
    const n = counter++;
    const id = `up${n.toString(36)}x`;
    const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? 16;
    // The first output token is the id itself; the rest are words. A slow or stalling stream is long.
    const perChoice = mode === 'greedy' ? maxTokens : Math.max(1, Math.min(maxTokens, mode === 'ok' ? 1 + (n % 24) : 24));
    // Each of the `n` choices is the same answer, and is billed.
    const choices = Array.from({ length: body.n ?? 1 }, (_, index) => index);
    const completionTokens = perChoice * choices.length;
    const promptTokens = Math.max(1, estimateInputTokens(body.messages ?? []) + imageTokensOf(body.messages ?? []) + (mode === 'greedy' ? 5 : (n % 3) - 1));
    const call: UpstreamCall = {
      id,
      stream: body.stream === true,
      maxTokens: body.max_completion_tokens ?? body.max_tokens,
      promptTokens,
      completionTokens,
      usageSent: false,
    };
    calls.set(id, call);
    const current = mode;
    open.add(response);
    response.once('close', () => open.delete(response));
    if (current === 'hang') return;

    const pieces = [id, ...Array.from({ length: perChoice - 1 }, (_, i) => ` ${words[i % words.length]}`)];
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    const base = { id: `chatcmpl-${id}`, created: 1, model: body.model };
    if (!call.stream) {
      if (current === 'slow') await new Promise((resolve) => setTimeout(resolve, perChoice * (options.chunkDelayMs ?? 200)));
      if (response.destroyed) return;
      call.usageSent = true;
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: choices.map((index) => ({ index, message: { role: 'assistant', content: pieces.join('') }, finish_reason: 'stop' })),
          usage,
        }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`);
    for (const [index, piece] of pieces.entries()) {
      if (response.destroyed) return;
      send({ ...base, object: 'chat.completion.chunk', choices: choices.map((index) => ({ index, delta: { content: piece }, finish_reason: null })) });
      if (current === 'stall' && index === 1) return;
      if (current === 'slow') await new Promise((resolve) => setTimeout(resolve, options.chunkDelayMs ?? 200));
    }
    if (response.destroyed) return;
    send({ ...base, object: 'chat.completion.chunk', choices: choices.map((index) => ({ index, delta: {}, finish_reason: 'stop' })) });
    send({ ...base, object: 'chat.completion.chunk', choices: [], usage });
    call.usageSent = true;
    response.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls,
    setMode: (next: SoakUpstreamMode) => {
      mode = next;
    },
    /** Answers still open (a hanging or stalled call the gateway has not given up on yet). */
    openCalls: () => open.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type SoakUpstream = Awaited<ReturnType<typeof startSoakUpstream>>;

/** The upstream call id an answer's text starts with. */
export const upstreamIdOf = (text: string) => /^(up[0-9a-z]+x)/.exec(text)?.[1];

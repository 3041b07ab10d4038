import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { type ChatBody, type ModelProvider, UpstreamFailure, UpstreamTimeout, usageFrom } from './model-provider.js';
import { sseEvents } from './sse.js';

type Options = { baseUrl: string; apiKey?: string | undefined; timeoutMs: number; idleTimeoutMs: number; onResponseHeaders?: ((seconds: number) => void) | undefined };

type ChatCompletionJson = { choices?: { message?: { content?: unknown }; delta?: { content?: unknown } }[]; usage?: Parameters<typeof usageFrom>[0] };

const contentOf = (json: ChatCompletionJson, part: 'message' | 'delta'): string =>
  (json.choices ?? []).map((choice) => (typeof choice[part]?.content === 'string' ? choice[part].content : '')).join('');

/** A whole (small) response body: read by events, which costs less than async iteration. */
function textOf(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const pieces: Buffer[] = [];
    response.on('data', (piece: Buffer) => pieces.push(piece));
    response.once('end', () => resolve(Buffer.concat(pieces).toString('utf8')));
    response.once('error', reject);
    // A connection cut before the end emits neither 'end' nor always 'error'.
    response.once('close', () => {
      if (!response.complete) reject(new Error('the model provider closed the connection mid-answer'));
    });
  });
}

/** The provider's own words for a failed call: OpenAI's `error.message`, else the status. */
async function failureOf(response: IncomingMessage): Promise<UpstreamFailure> {
  let text = '';
  response.setEncoding('utf8');
  for await (const piece of response as AsyncIterable<string>) if (text.length < 4096) text += piece;
  let message = `the model provider answered ${response.statusCode}`;
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') message = `${message}: ${parsed.error.message}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return new UpstreamFailure(message);
}

/**
 * Any OpenAI-compatible provider at UPSTREAM_BASE_URL, spoken to over plain HTTP with keep-alive:
 * POST {base}/chat/completions, JSON or server-sent events back. (The openai SDK spends about 1 ms
 * of CPU per call on what the gateway does not need; the wire protocol is all the gateway reads.)
 * No retries: a retried call could be billed twice upstream, and bytes already streamed cannot be
 * taken back. Streams always ask for usage (`stream_options.include_usage`). The provider must
 * answer within `timeoutMs`, and a stream must not go quiet for longer than `idleTimeoutMs`.
 */
export function openAiCompatible(options: Options): ModelProvider {
  const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/chat/completions`);
  const transport = url.protocol === 'https:' ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: 256 });
  // Taken apart once: node would otherwise convert the URL on every call.
  const target = { ...urlToHttpOptions(url), method: 'POST', agent };

  /** `delivered`: the whole request reached the provider (it may bill it from then on). */
  type Sent = { response: IncomingMessage; timedOut: () => boolean; delivered: () => boolean; idle: () => void };
  type Progress = { timedOut: () => boolean; delivered: () => boolean };

  /** Sends the body; resolves with the response once its headers arrived within the timeout. */
  function send(body: ChatBody, signal: AbortSignal, payload = JSON.stringify(body), retried = false): Promise<Sent> {
    return new Promise((resolve, reject) => {
      let timedOut = false;
      let delivered = false;
      const sentAt = performance.now();
      const request = transport.request({
        ...target,
        signal,
        headers: {
          'content-type': 'application/json',
          accept: body.stream ? 'text/event-stream' : 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
      });
      let timer = setTimeout(() => {
        timedOut = true;
        request.destroy(new UpstreamTimeout('the model provider did not answer in time', delivered));
      }, options.timeoutMs);
      const idle = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          timedOut = true;
          request.destroy(new UpstreamTimeout('the model provider went quiet', delivered));
        }, options.idleTimeoutMs);
      };
      request.once('close', () => clearTimeout(timer));
      request.once('finish', () => (delivered = true));
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the provider closed while idle: it never saw this request, so
        // sending it once more on a fresh connection cannot bill it twice (Node's documented pattern).
        if (request.reusedSocket && error.code === 'ECONNRESET' && !retried && !signal.aborted) {
          clearTimeout(timer);
          send(body, signal, payload, true).then(resolve, reject);
          return;
        }
        reject(error);
      });
      request.once('response', (response) => {
        options.onResponseHeaders?.((performance.now() - sentAt) / 1000);
        resolve({ response, timedOut: () => timedOut, delivered: () => delivered, idle });
      });
      request.end(payload);
    });
  }

  /** What a failure means to the gateway: the caller's abort as is, a timeout, or the provider failing (billable once it had the request). */
  function failure(error: unknown, signal: AbortSignal, progress: Progress): Error {
    if (signal.aborted) return error instanceof Error ? error : new Error('aborted');
    if (error instanceof UpstreamFailure) return error;
    if (progress.timedOut()) return new UpstreamTimeout('the model provider did not answer in time', progress.delivered());
    return new UpstreamFailure(error instanceof Error ? error.message : 'the model provider failed', progress.delivered());
  }

  const notSent: Progress = { timedOut: () => false, delivered: () => false };

  return {
    name: 'openai-compatible',
    complete: async (body, signal) => {
      let progress = notSent;
      try {
        const sent = await send({ ...body, stream: false }, signal);
        progress = sent;
        if (sent.response.statusCode !== 200) throw await failureOf(sent.response);
        const completion = JSON.parse(await textOf(sent.response)) as Record<string, unknown> & ChatCompletionJson;
        const usage = usageFrom(completion.usage);
        return { body: completion, text: contentOf(completion, 'message'), ...(usage ? { usage } : {}) };
      } catch (error) {
        throw failure(error, signal, progress);
      }
    },
    stream: async function* (body, signal) {
      let progress = notSent;
      try {
        const sent = await send({ ...body, stream: true, stream_options: { ...body.stream_options, include_usage: true } }, signal);
        progress = sent;
        if (sent.response.statusCode !== 200) throw await failureOf(sent.response);
        sent.idle();
        for await (const chunk of sseEvents(sent.response)) {
          sent.idle();
          const usage = usageFrom((chunk as ChatCompletionJson).usage);
          yield { chunk, text: contentOf(chunk, 'delta'), ...(usage ? { usage } : {}) };
        }
      } catch (error) {
        // The caller stopped it (its deadline): the stream simply ends.
        if (signal.aborted) return;
        throw failure(error, signal, progress);
      }
    },
  };
}

import { errors, Pool } from 'undici';
import { billableOutput, type OutputJson } from './billable-output.js';
import { type ChatBody, type ModelProvider, UpstreamFailure, UpstreamTimeout, usageFrom } from './model-provider.js';
import { ProviderExchange } from './provider-exchange.js';
import { sseEvents } from './sse.js';

type Options = {
  /** The provider's id, which the usage rows record; `upstream` unless named. */
  name?: string | undefined;
  baseUrl: string;
  apiKey?: string | undefined;
  /** Extra request headers the provider wants. */
  headers?: Record<string, string> | undefined;
  timeoutMs: number;
  idleTimeoutMs: number;
  onResponseHeaders?: ((seconds: number) => void) | undefined;
};

type ChatCompletionJson = OutputJson & { usage?: Parameters<typeof usageFrom>[0] };

/** Key-shaped text: OpenAI's `sk-…`, Stripe-style `sk_live_…`, a bearer token, or any long run of key characters. */
const keyShaped = /\bsk-[\w-]{8,}|\b(?:pk|sk|rk)_(?:live|test)_\w{8,}|\bBearer\s+\S+|[\w-]{32,}/g;

/**
 * The provider's words with no credential in them: they are logged, and some providers echo the key
 * they were sent (or others) in an error. The configured key and header values go first, then
 * anything key-shaped.
 */
function withoutCredentials(text: string, secrets: string[]): string {
  const named = secrets.filter((secret) => secret.length >= 8).reduce((out, secret) => out.split(secret).join('[redacted]'), text);
  return named.replace(keyShaped, '[redacted]');
}

/** The provider's own words for a failed call: OpenAI's `error.message`, else the status; never a credential. */
async function failureOf(exchange: ProviderExchange, secrets: string[]): Promise<UpstreamFailure> {
  const pieces: Buffer[] = [];
  let size = 0;
  for await (const piece of exchange.body()) {
    if (size < 4096) pieces.push(piece);
    size += piece.length;
  }
  const text = Buffer.concat(pieces).toString('utf8');
  let message = `the model provider answered ${exchange.status}`;
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') message = `${message}: ${withoutCredentials(parsed.error.message, secrets)}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return new UpstreamFailure(message, false, exchange.status);
}

/** What a failure means to the gateway: the caller's abort as is, a timeout, or the provider failing (billable once it had the request). */
function failure(error: unknown, signal: AbortSignal, exchange: ProviderExchange): Error {
  if (signal.aborted) return error instanceof Error ? error : new Error('aborted');
  if (error instanceof UpstreamFailure) return error;
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.ConnectTimeoutError) {
    return new UpstreamTimeout('the model provider did not answer in time', exchange.delivered);
  }
  if (error instanceof errors.BodyTimeoutError) return new UpstreamTimeout('the model provider went quiet', exchange.delivered);
  return new UpstreamFailure(error instanceof Error ? error.message : 'the model provider failed', exchange.delivered);
}

/**
 * Any OpenAI-compatible provider at UPSTREAM_BASE_URL, spoken to over HTTP with keep-alive through
 * an undici pool: POST {base}/chat/completions, JSON or server-sent events back. (The openai SDK
 * spends about 1 ms of CPU per call on what the gateway does not need, node:http about twice what
 * undici does; the wire protocol is all the gateway reads.) No retries: a retried call could be
 * billed twice upstream, and bytes already streamed cannot be taken back. Streams always ask for
 * usage (`stream_options.include_usage`). The provider must connect and send its response headers
 * within `timeoutMs`, and its body must not go quiet for longer than `idleTimeoutMs`.
 */
export function openAiCompatible(options: Options): ModelProvider {
  const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/chat/completions`);
  const pool = new Pool(url.origin, { connections: 256, connect: { timeout: options.timeoutMs } });
  const path = `${url.pathname}${url.search}`;
  const authorization = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const secrets = [options.apiKey ?? '', ...Object.values(options.headers ?? {})];
  const headersFor = (accept: string) => ({ ...options.headers, 'content-type': 'application/json', accept, ...authorization });
  const jsonHeaders = headersFor('application/json');
  const streamHeaders = headersFor('text/event-stream');

  /** Sends the body; resolves once the response's headers came. */
  async function send(body: ChatBody, exchange: ProviderExchange): Promise<void> {
    const sentAt = performance.now();
    pool.dispatch(
      {
        origin: url.origin,
        path,
        method: 'POST',
        headers: body.stream ? streamHeaders : jsonHeaders,
        body: JSON.stringify(body),
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.idleTimeoutMs,
      },
      exchange,
    );
    await exchange.response();
    options.onResponseHeaders?.((performance.now() - sentAt) / 1000);
  }

  return {
    name: options.name ?? 'upstream',
    complete: async (body, signal) => {
      const exchange = new ProviderExchange(signal);
      try {
        await send({ ...body, stream: false }, exchange);
        if (exchange.status !== 200) throw await failureOf(exchange, secrets);
        const completion = JSON.parse(await exchange.text()) as Record<string, unknown> & ChatCompletionJson;
        const usage = usageFrom(completion.usage);
        return { body: completion, ...billableOutput(completion, 'message'), ...(usage ? { usage } : {}) };
      } catch (error) {
        throw failure(error, signal, exchange);
      }
    },
    stream: async function* (body, signal) {
      const exchange = new ProviderExchange(signal);
      try {
        await send({ ...body, stream: true, stream_options: { ...body.stream_options, include_usage: true } }, exchange);
        if (exchange.status !== 200) throw await failureOf(exchange, secrets);
        for await (const chunk of sseEvents(exchange.body())) {
          const usage = usageFrom((chunk as ChatCompletionJson).usage);
          yield { chunk, ...billableOutput(chunk as ChatCompletionJson, 'delta'), ...(usage ? { usage } : {}) };
        }
      } catch (error) {
        // The caller stopped it (its deadline): the stream simply ends.
        if (signal.aborted) return;
        throw failure(error, signal, exchange);
      }
    },
    close: () => pool.close(),
  };
}

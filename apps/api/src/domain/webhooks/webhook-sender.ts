import { Agent, request } from 'undici';
import { publicOnlyLookup, type Resolve, refuseUnsafeUrl } from './endpoint-address.js';

/** What one POST to an endpoint came to: its status, or why there was none. */
export type SendOutcome = { statusCode: number | null; error: string | null; durationMs: number };

export type WebhookSender = {
  send: (url: string, headers: Record<string, string>, body: string) => Promise<SendOutcome>;
  close: () => Promise<void>;
};

/** How much of an endpoint's answer is read (it is only reported, never kept). */
const maxAnswerBytes = 64 * 1024;

/**
 * POSTs deliveries through one connection pool the app creates and closes. In production it
 * connects only to public addresses (the URL's literal address checked first, a name's answers by
 * the pool's lookup); redirects are not followed. `timeoutMs` bounds the whole exchange.
 */
export function createWebhookSender(options: { production: boolean; timeoutMs?: number; resolve?: Resolve }): WebhookSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const agent = new Agent({
    connect: { timeout: timeoutMs, ...(options.production ? { lookup: publicOnlyLookup(options.resolve) } : {}) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  return {
    async send(url, headers, body) {
      const started = performance.now();
      const durationMs = () => Math.round(performance.now() - started);
      try {
        refuseUnsafeUrl(url, options);
        const answer = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'Meterway-Webhooks/1', ...headers },
          body,
          dispatcher: agent,
          signal: AbortSignal.timeout(timeoutMs),
        });
        let read = 0;
        for await (const chunk of answer.body) {
          read += (chunk as Buffer).length;
          if (read > maxAnswerBytes) break;
        }
        if (answer.statusCode >= 200 && answer.statusCode < 300) return { statusCode: answer.statusCode, error: null, durationMs: durationMs() };
        return { statusCode: answer.statusCode, error: `The endpoint answered ${answer.statusCode}.`, durationMs: durationMs() };
      } catch (error) {
        return { statusCode: null, error: reasonOf(error, timeoutMs), durationMs: durationMs() };
      }
    },
    close: () => agent.close(),
  };
}

/** Why an attempt got no answer, in words for the console. */
function reasonOf(error: unknown, timeoutMs: number): string {
  const { name, code, message, cause } = error as { name?: string; code?: string; message?: string; cause?: unknown };
  if (name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return `No answer within ${timeoutMs / 1000} s.`;
  if (cause) return reasonOf(cause, timeoutMs);
  return message ?? String(error);
}

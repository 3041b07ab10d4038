import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamFailure, UpstreamTimeout } from './model-provider.js';
import { openAiCompatible } from './openai-compatible.js';

// Providers frame server-sent events with \n or \r\n and split them across packets anywhere.
const events = [
  { choices: [{ delta: { content: 'Hel' } }] },
  { choices: [{ delta: { content: 'lo' } }] },
  { choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } },
];
const wire = `${events.map((event) => `data: ${JSON.stringify(event)}\r\n\r\n`).join('')}data: [DONE]\r\n\r\n`;

let server: ReturnType<typeof createServer>;
let baseUrl = '';
const seen: { authorization?: string; body: Record<string, unknown> }[] = [];
beforeAll(async () => {
  server = createServer(async (request, response) => {
    let raw = '';
    for await (const chunk of request) raw += chunk;
    if (request.url !== '/v1/chat/completions')
      return behave(request.url ?? '', JSON.parse(raw) as { stream?: boolean }, response, request.headers.authorization);
    seen.push({ authorization: request.headers.authorization, body: JSON.parse(raw) });
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let at = 0; at < wire.length; at += 7) {
      response.write(wire.slice(at, at + 7));
      await new Promise((resolve) => setImmediate(resolve));
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

async function behave(url: string, body: { stream?: boolean }, response: ServerResponse, authorization = '') {
  const name = url.split('/')[1];
  if (name === 'echoes-its-key') {
    // As some providers do: the key it was sent, and another key-shaped value, in a 401's words.
    const message = `Incorrect API key provided: ${authorization.replace(/^Bearer /, '')}. Your organization key is sk-proj-AbCdEf0123456789AbCdEf0123456789.`;
    response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message } }));
  } else if (name === 'rate-limited') {
    response.writeHead(429, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Rate limit reached' } }));
  } else if (name === 'split-character') {
    const wire = Buffer.from(
      body.stream
        ? `data: ${JSON.stringify({ choices: [{ delta: { content: 'né' } }] })}\n\ndata: [DONE]\n\n`
        : JSON.stringify({ choices: [{ message: { content: 'né' } }], usage: { prompt_tokens: 1, completion_tokens: 1 } }),
    );
    // Split inside the two bytes of "é".
    const cut = wire.indexOf(Buffer.from('é')) + 1;
    response.writeHead(200, { 'content-type': body.stream ? 'text/event-stream' : 'application/json' });
    response.write(wire.subarray(0, cut));
    await new Promise((resolve) => setTimeout(resolve, 20));
    response.end(wire.subarray(cut));
  } else if (name === 'quiet-stream') {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(`data: ${JSON.stringify({ choices: [{ delta: { content: 'Hel' } }] })}\n\n`);
    // …and nothing more, until the client goes.
  }
  // 'silent': has the request, never answers.
}

describe('the OpenAI-compatible provider', () => {
  it('reads CRLF-framed events split anywhere, forces usage on streams and sends the API key', async () => {
    const provider = openAiCompatible({ baseUrl, apiKey: 'sk-upstream', timeoutMs: 2000, idleTimeoutMs: 1000 });
    const pieces = [];
    for await (const piece of provider.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal)) pieces.push(piece);

    expect(pieces.map((piece) => piece.produced['0:content']).join('')).toBe('Hello');
    expect(pieces.at(-1)?.usage).toEqual({ promptTokens: 3, cachedTokens: 0, completionTokens: 2 });
    expect(seen.at(-1)).toMatchObject({ authorization: 'Bearer sk-upstream', body: { stream: true, stream_options: { include_usage: true } } });
  });

  it('decodes a character split across two reads whole', async () => {
    const provider = openAiCompatible({ baseUrl: behaving('split-character'), timeoutMs: 2000, idleTimeoutMs: 1000 });
    const completed = await provider.complete({ model: 'm', messages: [] }, new AbortController().signal);
    expect(completed.produced['0:content']).toBe('né');
    const pieces = [];
    for await (const piece of provider.stream({ model: 'm', messages: [], stream: true }, new AbortController().signal))
      pieces.push(piece.produced['0:content']);
    expect(pieces.join('')).toBe('né');
  });

  it("passes on the provider's own words for an error status, as a failure it does not bill", async () => {
    const provider = openAiCompatible({ baseUrl: behaving('rate-limited'), timeoutMs: 2000, idleTimeoutMs: 1000 });
    const failure = await provider.complete({ model: 'm', messages: [] }, new AbortController().signal).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamFailure);
    expect(failure).toMatchObject({ message: 'the model provider answered 429: Rate limit reached', billable: false });
  });

  it('keeps credentials out of the words it passes on (they are logged): its own key and anything key-shaped are redacted', async () => {
    const apiKey = 'sk-meterway-upstream-key-0123456789abcdef';
    const provider = openAiCompatible({ baseUrl: behaving('echoes-its-key'), apiKey, timeoutMs: 2000, idleTimeoutMs: 1000 });
    const failure = await provider.complete({ model: 'm', messages: [] }, new AbortController().signal).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      message: 'the model provider answered 401: Incorrect API key provided: [redacted]. Your organization key is [redacted].',
      billable: false,
    });
    expect((failure as Error).message).not.toContain('0123456789');
  });

  it('tells a provider that never had the request (nothing listens) from one that had it and did not answer in time', async () => {
    const refused = openAiCompatible({ baseUrl: 'http://127.0.0.1:9/v1', timeoutMs: 2000, idleTimeoutMs: 1000 });
    const notSent = await refused.complete({ model: 'm', messages: [] }, new AbortController().signal).catch((error: unknown) => error);
    expect(notSent).toBeInstanceOf(UpstreamFailure);
    expect(notSent).toMatchObject({ billable: false });

    const silent = openAiCompatible({ baseUrl: behaving('silent'), timeoutMs: 200, idleTimeoutMs: 1000 });
    const timedOut = await silent.complete({ model: 'm', messages: [] }, new AbortController().signal).catch((error: unknown) => error);
    expect(timedOut).toBeInstanceOf(UpstreamTimeout);
    expect(timedOut).toMatchObject({ message: 'the model provider did not answer in time', billable: true });
  });

  it('ends a stream that goes quiet as a timeout it may bill, and one its caller stops quietly', async () => {
    const provider = openAiCompatible({ baseUrl: behaving('quiet-stream'), timeoutMs: 2000, idleTimeoutMs: 200 });
    const texts: string[] = [];
    const quiet = await (async () => {
      for await (const piece of provider.stream({ model: 'm', messages: [], stream: true }, new AbortController().signal))
        texts.push(piece.produced['0:content'] ?? '');
    })().catch((error: unknown) => error);
    expect(texts).toEqual(['Hel']);
    expect(quiet).toBeInstanceOf(UpstreamTimeout);
    expect(quiet).toMatchObject({ message: 'the model provider went quiet', billable: true });

    const caller = new AbortController();
    const stopped: string[] = [];
    for await (const piece of provider.stream({ model: 'm', messages: [], stream: true }, caller.signal)) {
      stopped.push(piece.produced['0:content'] ?? '');
      caller.abort();
    }
    expect(stopped).toEqual(['Hel']);
  });
});

/** A provider at a path of its own that behaves as named. */
function behaving(name: 'split-character' | 'rate-limited' | 'echoes-its-key' | 'silent' | 'quiet-stream'): string {
  return `${baseUrl.replace(/\/v1$/, '')}/${name}/v1`;
}

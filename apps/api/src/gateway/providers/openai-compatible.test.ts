import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('the OpenAI-compatible provider', () => {
  it('reads CRLF-framed events split anywhere, forces usage on streams and sends the API key', async () => {
    const provider = openAiCompatible({ baseUrl, apiKey: 'sk-upstream', timeoutMs: 2000, idleTimeoutMs: 1000 });
    const pieces = [];
    for await (const piece of provider.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal)) pieces.push(piece);

    expect(pieces.map((piece) => piece.text).join('')).toBe('Hello');
    expect(pieces.at(-1)?.usage).toEqual({ promptTokens: 3, cachedTokens: 0, completionTokens: 2 });
    expect(seen.at(-1)).toMatchObject({ authorization: 'Bearer sk-upstream', body: { stream: true, stream_options: { include_usage: true } } });
  });
});

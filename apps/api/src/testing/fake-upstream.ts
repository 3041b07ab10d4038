import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type UpstreamMode = 'ok' | 'no-usage' | 'error' | 'hang' | 'slow-stream';

/**
 * A local OpenAI-compatible provider speaking the real wire format (JSON and SSE), with switchable
 * behaviour; it records each request body for assertions.
 */
export async function startFakeUpstream() {
  let mode: UpstreamMode = 'ok';
  /** What the assistant's message holds besides its words (tool calls, a refusal, reasoning, audio), as OpenAI's JSON writes it. */
  let produced: Record<string, unknown> = {};
  const requests: Record<string, any>[] = [];
  /** Each request's headers, in the order of `requests`. */
  const requestHeaders: IncomingMessage['headers'][] = [];
  const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let raw = '';
    for await (const chunk of request) raw += chunk;
    const body = JSON.parse(raw || '{}');
    requests.push(body);
    requestHeaders.push(request.headers);
    if (mode === 'error') {
      response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'boom', type: 'server_error' } }));
      return;
    }
    if (mode === 'hang') return; // never answers
    const count = Math.min(body.max_tokens ?? body.max_completion_tokens ?? 8, words.length);
    const content = words.slice(0, count).join(' ');
    const usage = { prompt_tokens: 11, completion_tokens: count, total_tokens: 11 + count };
    const base = { id: 'chatcmpl-upstream', created: 1, model: body.model };
    if (!body.stream) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content, ...produced }, finish_reason: 'stop' }],
          ...(mode === 'no-usage' ? {} : { usage }),
        }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`);
    for (const [index, word] of words.slice(0, count).entries()) {
      send({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: index ? ` ${word}` : word }, finish_reason: null }] });
      if (mode === 'slow-stream') await new Promise((resolve) => setTimeout(resolve, 150));
      if (response.destroyed) return;
    }
    for (const delta of deltasOf(produced)) send({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] });
    send({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    if (mode !== 'no-usage' && body.stream_options?.include_usage) send({ ...base, object: 'chat.completion.chunk', choices: [], usage });
    response.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    requestHeaders,
    setMode: (next: UpstreamMode) => {
      mode = next;
    },
    /** Sets what the next answers produce besides their words (none: `{}`). */
    setProduced: (next: Record<string, unknown>) => {
      produced = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A message's other parts as a stream sends them: a field a chunk, a tool call's arguments in two pieces after its name. */
function deltasOf(produced: Record<string, unknown>): Record<string, unknown>[] {
  return Object.entries(produced).flatMap(([field, value]) => {
    if (field !== 'tool_calls' || !Array.isArray(value)) return [{ [field]: value }];
    return value.flatMap((call: { id: string; type: string; function: { name: string; arguments: string } }, index) => {
      const half = Math.floor(call.function.arguments.length / 2);
      return [
        { tool_calls: [{ index, id: call.id, type: call.type, function: { name: call.function.name, arguments: '' } }] },
        { tool_calls: [{ index, function: { arguments: call.function.arguments.slice(0, half) } }] },
        { tool_calls: [{ index, function: { arguments: call.function.arguments.slice(half) } }] },
      ];
    });
  });
}

// The zero-latency model provider of bench/gateway/overhead.ts, in a process of its own so its
// work never shares an event loop with what is measured. POST /v1/chat/completions is answered at
// once with a fixed chat.completion with usage, or, when the body asks for a stream, with fixed
// SSE chunks ending in the usage chunk and [DONE]. It sends its port to the parent over IPC.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const base = { id: 'chatcmpl-bench', created: 1_700_000_000, model: 'gpt-4o-mini' };
const usage = { prompt_tokens: 9, completion_tokens: 9, total_tokens: 18 };
const content = 'Hello! How can I help you today?';

const completion = Buffer.from(
  JSON.stringify({
    ...base,
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage,
  }),
);
const chunk = (choices: unknown[], extra: object = {}) => `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`;
const events = Buffer.from(
  [
    chunk([{ index: 0, delta: { role: 'assistant', content: 'Hello!' }, finish_reason: null }]),
    chunk([{ index: 0, delta: { content: ' How can I help you today?' }, finish_reason: null }]),
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
    chunk([], { usage }),
    'data: [DONE]\n\n',
  ].join(''),
);

const server = createServer((request, response) => {
  if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
    return;
  }
  let raw = '';
  request.setEncoding('utf8');
  request.on('data', (part: string) => (raw += part));
  request.on('end', () => {
    if (/"stream"\s*:\s*true/.test(raw)) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }).end(events);
    } else {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': completion.length }).end(completion);
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('disconnect', () => process.exit(0));

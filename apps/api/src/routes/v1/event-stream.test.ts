import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { eventStream } from './event-stream.js';

const app = Fastify();
app.get('/events', async (_request, reply) => {
  const events = eventStream(reply, 1000);
  events.open();
  // As a provider's last read brings them: several events and the end in one turn.
  for (const data of ['{"n":1}', '{"n":2}', '{"n":3}']) events.send(data);
  events.end('[DONE]');
});
afterAll(() => app.close());

describe('an event stream', () => {
  it('delivers every event sent in the turn it ends in, and the end', async () => {
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const response = await fetch(`${url}/events`);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await response.text()).toBe('data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":3}\n\ndata: [DONE]\n\n');
  });
});

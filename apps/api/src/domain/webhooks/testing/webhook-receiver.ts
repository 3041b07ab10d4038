import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { headers: IncomingHttpHeaders; body: string; at: number };

/** What the receiver does with the next request: answer with a status, or stall past any timeout. */
export type Behaviour = number | 'stall';

/**
 * A local webhook endpoint on 127.0.0.1 that records every request's headers and raw body and
 * answers each with the next queued behaviour (200 once the queue is empty).
 */
export async function startWebhookReceiver() {
  const received: Received[] = [];
  const behaviours: Behaviour[] = [];
  const stalled = new Set<() => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const behaviour = behaviours.shift() ?? 200;
      if (behaviour === 'stall') {
        const finish = () => response.destroy();
        stalled.add(finish);
        return;
      }
      response.writeHead(behaviour, { 'content-type': 'text/plain' }).end(behaviour < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    /** Queues what the next requests get, in order. */
    answerNext: (...next: Behaviour[]) => behaviours.push(...next),
    /** Forgets what was received and queued. */
    reset: () => {
      received.length = 0;
      behaviours.length = 0;
    },
    /** The bodies received, parsed. */
    events: () => received.map((request) => JSON.parse(request.body) as { id: string; type: string; createdAt: string; data: Record<string, unknown> }),
    close: async () => {
      for (const finish of stalled) finish();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

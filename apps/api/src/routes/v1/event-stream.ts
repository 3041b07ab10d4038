import type { FastifyReply } from 'fastify';
import type { EventClient } from '../../gateway/forward-call.js';

/**
 * Server-sent events on the reply's socket, at the client's pace: a client that takes nothing
 * for `idleTimeoutMs` while events wait is cut off.
 */
export function eventStream(reply: FastifyReply, idleTimeoutMs: number): EventClient {
  const socket = reply.raw;
  return {
    open: () => {
      reply.hijack();
      socket.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
    },
    listening: () => !socket.destroyed,
    send: (data) => {
      // Events that arrive together leave together: one write to the socket per turn, not per event.
      socket.cork();
      process.nextTick(() => socket.uncork());
      return socket.write(`data: ${data}\n\n`);
    },
    caughtUp: () =>
      new Promise((resolve) => {
        const done = (tookSome: boolean) => {
          clearTimeout(timer);
          socket.off('drain', onDrain).off('close', onClose);
          if (!tookSome) socket.destroy();
          resolve();
        };
        const onDrain = () => done(true);
        const onClose = () => done(true);
        const timer = setTimeout(() => done(false), idleTimeoutMs);
        socket.once('drain', onDrain).once('close', onClose);
      }),
    end: (data) => {
      // Node 24 drops what a corked chunked response holds when it ends still corked: let it out first.
      while (socket.writableCorked > 0) socket.uncork();
      socket.end(`data: ${data}\n\n`);
    },
  };
}

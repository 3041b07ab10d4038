import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clientOf } from '@meterway/service';
import type { Called } from '../../gateway/authenticate.js';
import { callerOfCall, completeChat, listModels } from '../../gateway/complete-chat.js';
import { endUserNameHeader, endUserTokenHeader } from '../../gateway/end-user-tokens.js';
import type { CallHeaders, Gateway } from '../../gateway/gateway.js';
import { eventStream } from './event-stream.js';

const headersOf = (request: FastifyRequest): CallHeaders => ({
  authorization: request.headers.authorization,
  origin: request.headers.origin,
  client: clientOf(request.ip),
  endUserToken: [request.headers[endUserTokenHeader]].flat()[0],
  endUserName: [request.headers[endUserNameHeader]].flat()[0],
  log: request.log,
});

export function chatCompletionRoutes(app: FastifyInstance, gateway: Gateway, options: { idleTimeoutMs: number }) {
  app.get('/models', { helmet: false }, (request) => listModels(gateway, headersOf(request)));

  // Who calls is checked when the request arrives, before its body is read: a caller refused (no
  // live key, an origin or a caller the key refuses, over a rate) costs no parse of up to 1 MiB.
  const callers = new WeakMap<FastifyRequest, { headers: CallHeaders; called: Called }>();
  app.post(
    '/chat/completions',
    {
      bodyLimit: 1024 * 1024,
      helmet: false,
      onRequest: async (request) => {
        const headers = headersOf(request);
        callers.set(request, { headers, called: await callerOfCall(gateway, headers) });
      },
    },
    (request, reply) => {
      const { headers, called } = callers.get(request)!;
      return completeChat(gateway, { ...headers, body: request.body }, called, eventStream(reply, options.idleTimeoutMs));
    },
  );
}

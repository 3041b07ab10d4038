import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clientOf } from '@meterway/service';
import type { Called } from '../../gateway/authenticate.js';
import { callerOfCall, completeChat, listModels } from '../../gateway/complete-chat.js';
import { endUserNameHeader, endUserTokenHeader } from '../../gateway/end-user-tokens.js';
import type { CallHeaders, Gateway } from '../../gateway/gateway.js';
import { eventStream } from './event-stream.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** On a chat completion, who calls, checked when the request arrived (before its body was read). */
    gatewayCaller: { headers: CallHeaders; called: Called } | null;
  }
}

const firstOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

const headersOf = (request: FastifyRequest): CallHeaders => ({
  authorization: request.headers.authorization,
  origin: request.headers.origin,
  client: clientOf(request.ip),
  endUserToken: firstOf(request.headers[endUserTokenHeader]),
  endUserName: firstOf(request.headers[endUserNameHeader]),
  log: request.log,
});

export function chatCompletionRoutes(app: FastifyInstance, gateway: Gateway, options: { idleTimeoutMs: number }) {
  app.get('/models', (request) => listModels(gateway, headersOf(request)));

  // Who calls is checked when the request arrives, before its body is read: a caller refused (no
  // live key, an origin or a caller the key refuses, over a rate) costs no parse of up to 1 MiB.
  app.decorateRequest('gatewayCaller', null);
  app.post(
    '/chat/completions',
    {
      bodyLimit: 1024 * 1024,
      onRequest: async (request) => {
        const headers = headersOf(request);
        request.gatewayCaller = { headers, called: await callerOfCall(gateway, headers) };
      },
    },
    (request, reply) => {
      const { headers, called } = request.gatewayCaller!;
      return completeChat(gateway, { ...headers, body: request.body }, called, eventStream(reply, options.idleTimeoutMs));
    },
  );
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clientOf } from '@meterway/service';
import { completeChat, listModels } from '../../gateway/complete-chat.js';
import { endUserNameHeader, endUserTokenHeader } from '../../gateway/end-user-tokens.js';
import type { CallRequest, Gateway } from '../../gateway/gateway.js';
import { eventStream } from './event-stream.js';

const callOf = (request: FastifyRequest): CallRequest => ({
  authorization: request.headers.authorization,
  origin: request.headers.origin,
  client: clientOf(request.ip),
  endUserToken: [request.headers[endUserTokenHeader]].flat()[0],
  endUserName: [request.headers[endUserNameHeader]].flat()[0],
  body: request.body,
  log: request.log,
});

export function chatCompletionRoutes(app: FastifyInstance, gateway: Gateway, options: { idleTimeoutMs: number }) {
  app.get('/models', { helmet: false }, (request) => listModels(gateway, callOf(request)));

  app.post('/chat/completions', { bodyLimit: 1024 * 1024, helmet: false }, (request, reply) =>
    completeChat(gateway, callOf(request), eventStream(reply, options.idleTimeoutMs)),
  );
}

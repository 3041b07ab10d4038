import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { isDatabaseUnavailable } from '@meterway/service';
import { GatewayError, gatewayErrors, requestRefusal } from '../../gateway/openai-error.js';

/**
 * The gateway answers any browser origin at the HTTP level (preflights carry no key); whether a
 * call is allowed is the key's decision. Responses, errors included, carry CORS headers so the
 * browser app can read them. Errors leave in OpenAI's shape.
 */
export function gatewayScope(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin) {
      reply.header('access-control-allow-origin', origin);
      reply.header('vary', 'Origin');
      reply.header('access-control-expose-headers', 'retry-after, x-request-id');
    }
    if (request.method !== 'OPTIONS') return done();
    reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
    reply.header('access-control-allow-headers', request.headers['access-control-request-headers'] ?? 'authorization, content-type');
    reply.header('access-control-max-age', '600');
    // Answered here, the request goes no further.
    reply.code(204).send();
  });
  app.options('/*', async (_request, reply) => reply.code(204).send());

  app.setNotFoundHandler((request, reply) =>
    sendGatewayError(reply, gatewayErrors.invalidRequest(`Unknown endpoint ${request.method} ${request.url.split('?')[0]}.`)),
  );
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof GatewayError) return sendGatewayError(reply, error);
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'the database does not answer');
      return sendGatewayError(reply, gatewayErrors.unavailable());
    }
    const status = error.statusCode ?? 500;
    if (status < 500) return sendGatewayError(reply, requestRefusal(error, status, request.routeOptions.bodyLimit));
    request.log.error({ err: error }, 'gateway request failed');
    return sendGatewayError(reply, new GatewayError(500, 'api_error', 'internal_error', 'Something went wrong on our side. Nothing was charged.'));
  });
}

export function sendGatewayError(reply: FastifyReply, error: GatewayError) {
  if (error.retryAfterSeconds) reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.code(error.status).send(error.body());
}

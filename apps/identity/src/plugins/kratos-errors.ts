import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { KratosError } from '../flows/errors.js';

/** Every error leaves in Kratos' envelope with its `Ory-Error-Id` header; a 5xx shows no internals. */
export function registerKratosErrors(app: FastifyInstance): void {
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).send(new KratosError(404).body()),
  );
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const kratosError =
      error instanceof KratosError
        ? error
        : (error.statusCode ?? 500) < 500
          ? new KratosError(error.statusCode ?? 400, { reason: error.message })
          : undefined;
    if (kratosError) {
      return reply
        .code(kratosError.httpStatus)
        .header('ory-error-id', kratosError.init.id ?? '')
        .send(kratosError.body(request.id));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).header('ory-error-id', '').send(new KratosError(500).body(request.id));
  });
}

/**
 * The router's own refusals (a malformed %-escape in the path, an over-long path parameter) come
 * before any route and its error handler: createApp passes this as `frameworkErrors`, so they too
 * leave in Kratos' envelope.
 */
export function sendFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode ?? 400;
  return reply.code(status).header('ory-error-id', '').send(new KratosError(status, { reason: error.message }).body(request.id));
}

import { databaseRetryAfterSeconds, isDatabaseUnavailable } from '@meterway/service';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors, KratosError } from '../flows/errors.js';

/**
 * Every error leaves in Kratos' envelope, with an `Ory-Error-Id` header when it has an id (none otherwise, as Kratos); a 5xx shows no internals.
 * A database that does not answer is a 503 with `Retry-After`, not a 500: the request did nothing
 * and will work once the database is back.
 */
export function registerKratosErrors(app: FastifyInstance): void {
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(new KratosError(404).body()));
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const send = (kratosError: KratosError) => {
      const { id, details } = kratosError.init;
      if (id) reply.header('ory-error-id', id);
      // A refusal that says when to come back (rate limits, a database away) says it in the header too.
      if (typeof details?.retry_after === 'number') reply.header('retry-after', String(details.retry_after));
      return reply.code(kratosError.httpStatus).send(kratosError.body(request.id));
    };
    if (error instanceof KratosError) return send(error);
    if ((error.statusCode ?? 500) < 500) return send(new KratosError(error.statusCode ?? 400, { reason: error.message }));
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'the database does not answer');
      return send(errors.databaseUnavailable(databaseRetryAfterSeconds));
    }
    request.log.error({ err: error }, 'request failed');
    return send(new KratosError(500));
  });
}

/**
 * The router's own refusals (a malformed %-escape in the path, an over-long path parameter) come
 * before any route and its error handler: createApp passes this as `frameworkErrors`, so they too
 * leave in Kratos' envelope.
 */
export function sendFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode ?? 400;
  return reply.code(status).send(new KratosError(status, { reason: error.message }).body(request.id));
}

import { STATUS_CODES } from 'node:http';
import type { Problem } from '@meterway/contracts';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { databaseRetryAfterSeconds, isDatabaseUnavailable } from '@meterway/service';
import { GatewayError } from '../gateway/openai-error.js';

function sendProblem(reply: FastifyReply, status: number, detail: string, extra: Record<string, unknown> = {}) {
  const problem: Problem = { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail, ...extra };
  return reply.code(status).type('application/problem+json').send(problem);
}

/** Every 4xx and 5xx leaves as application/problem+json (RFC 9457); a 5xx never shows internals. */
export function registerProblemJson(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => sendProblem(reply, 404, `No route for ${request.method} ${request.url.split('?')[0]}.`));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      const { retryAfter, ...extra } = error.extra;
      if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
      return sendProblem(reply, error.status, error.message, { code: error.code, ...extra });
    }
    if (error.validation) {
      const errors = error.validation.map((issue) => ({
        field: issue.instancePath.replace(/^\//, '').replaceAll('/', '.'),
        message: issue.message ?? 'is invalid',
      }));
      const detail = errors.map((problem) => (problem.field ? `${problem.field}: ${problem.message}` : problem.message)).join('; ');
      return sendProblem(reply, 400, detail, { code: 'BadRequest', errors });
    }
    if (isDatabaseUnavailable(error)) {
      // Nothing was done; the same request will work once the database is back.
      request.log.warn({ err: error }, 'the database does not answer');
      reply.header('retry-after', String(databaseRetryAfterSeconds));
      return sendProblem(reply, 503, 'The service cannot reach its database. Try again in a moment.', { code: 'ServiceUnavailable' });
    }
    const status = error.statusCode ?? 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      return sendProblem(reply, status, 'Something went wrong on our side. Try again later.');
    }
    return sendProblem(reply, status, error.message);
  });
}

/**
 * The router's own refusals (a malformed %-escape in the path, an over-long path parameter) come
 * before any route and its error handler: createApp passes this as `frameworkErrors`, so they too
 * leave as problem+json, or in OpenAI's shape under /v1.
 */
export function sendFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode ?? 400;
  if (request.url.startsWith('/v1/'))
    return reply.code(status).send(new GatewayError(status, 'invalid_request_error', 'invalid_request', error.message).body());
  return sendProblem(reply, status, error.message);
}

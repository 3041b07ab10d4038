import { isDatabaseUnavailable } from '@meterway/service';
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError, type ErrorCode } from '../../errors/app-error.js';
import { GatewayError, requestRefusal } from '../../gateway/openai-error.js';
import { sendGatewayError } from '../v1/gateway-scope.js';

/** The api's error codes in OpenAI's words: the type and code a developer-API failure carries. */
const openAiNames: Record<ErrorCode, [type: string, code: string]> = {
  BadRequest: ['invalid_request_error', 'invalid_request'],
  Unauthorized: ['invalid_request_error', 'invalid_api_key'],
  PaymentRequired: ['insufficient_quota', 'payment_required'],
  Forbidden: ['permission_error', 'permission_denied'],
  NotFound: ['invalid_request_error', 'not_found'],
  Conflict: ['invalid_request_error', 'conflict'],
  UnsupportedMediaType: ['invalid_request_error', 'unsupported_media_type'],
  TooManyRequests: ['requests', 'rate_limit_exceeded'],
  Internal: ['api_error', 'internal_error'],
  ServiceUnavailable: ['api_error', 'service_unavailable'],
};

/** The first field a domain BadRequest names (AppError's `errors`), as OpenAI's `param`. */
const paramOf = (extra: Record<string, unknown>): string | null => {
  const [first] = Array.isArray(extra.errors) ? (extra.errors as { field?: unknown }[]) : [];
  return typeof first?.field === 'string' && first.field ? first.field : null;
};

function fromAppError(error: AppError): GatewayError {
  const [type, code] = openAiNames[error.code];
  const retryAfter = typeof error.extra.retryAfter === 'number' ? error.extra.retryAfter : undefined;
  return new GatewayError(error.status, type, code, error.message, paramOf(error.extra), retryAfter);
}

/** A request that failed validation: every issue in the message, the first field as `param`. */
function fromValidation(error: FastifyError): GatewayError {
  const issues = (error.validation ?? []).map((issue) => ({
    field: issue.instancePath.replace(/^\//, '').replaceAll('/', '.'),
    message: issue.message ?? 'is invalid',
  }));
  const where = error.validationContext ? `Invalid ${error.validationContext}: ` : '';
  const message = issues.map((issue) => (issue.field ? `${issue.field}: ${issue.message}` : issue.message)).join('; ');
  return new GatewayError(400, 'invalid_request_error', 'invalid_request', `${where}${message || 'the request is invalid'}.`, issues[0]?.field || null);
}

/**
 * The developer API (/v1/organization/…) answers in OpenAI's error shape, as the gateway does: its
 * callers are the same servers, with the same SDKs and error handling. A 5xx never shows internals.
 */
export function developerScope(app: FastifyInstance) {
  app.setNotFoundHandler((request, reply) =>
    sendGatewayError(
      reply,
      new GatewayError(404, 'invalid_request_error', 'unknown_endpoint', `Unknown endpoint ${request.method} ${request.url.split('?')[0]}.`),
    ),
  );
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof GatewayError) return sendGatewayError(reply, error);
    if (error instanceof AppError) return sendGatewayError(reply, fromAppError(error));
    if (error.validation) return sendGatewayError(reply, fromValidation(error));
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'the database does not answer');
      return sendGatewayError(
        reply,
        fromAppError(new AppError('ServiceUnavailable', 'The service cannot reach its database. Try again in a moment.', { retryAfter: 2 })),
      );
    }
    const status = error.statusCode ?? 500;
    if (status < 500) return sendGatewayError(reply, requestRefusal(error, status, request.routeOptions.bodyLimit));
    request.log.error({ err: error }, 'developer API request failed');
    return sendGatewayError(reply, new GatewayError(500, 'api_error', 'internal_error', 'Something went wrong on our side. Try again later.'));
  });
}

import { maxEndUserLength } from '@meterway/contracts';
import { databaseRetryAfterSeconds } from '@meterway/service';

/** A gateway failure, answered in OpenAI's error shape `{"error":{"message","type","code","param"}}`. */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'GatewayError';
  }

  body() {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param } };
  }
}

/** 429 rate_limit_exceeded: too many requests from whom `who` names, and when to try again. */
const tooManyRequests = (who: string, retryAfterSeconds: number) =>
  new GatewayError(429, 'requests', 'rate_limit_exceeded', `Too many requests ${who}. Retry in ${retryAfterSeconds} seconds.`, null, retryAfterSeconds);

export const gatewayErrors = {
  invalidRequest: (message: string, param: string | null = null) => new GatewayError(400, 'invalid_request_error', 'invalid_request', message, param),
  unknownModel: (model: string) =>
    new GatewayError(400, 'invalid_request_error', 'model_not_found', `The model '${model}' does not exist or is not priced on this gateway.`, 'model'),
  invalidKey: () =>
    new GatewayError(
      401,
      'invalid_request_error',
      'invalid_api_key',
      'Incorrect or missing API key: send a publishable key (pk_live_…) or a secret key (sk_live_…) as a Bearer token. Create one in the Meterway console.',
    ),
  secretKeyInBrowser: () =>
    new GatewayError(
      403,
      'permission_error',
      'secret_key_in_browser',
      'This is a secret key, and the request came from a web page (it sent an Origin header). Secret keys are for servers: anyone who can see the page can copy the key. Roll or delete it in the Meterway console, and use a publishable key in web pages.',
    ),
  adminKeyOnGateway: () =>
    new GatewayError(
      403,
      'permission_error',
      'admin_key_not_allowed',
      'This secret key has the admin scope: it works on the developer API (/v1/organization/…) only. Use a secret key with the gateway scope, or a publishable key, for model calls.',
    ),
  insufficientCredit: () =>
    new GatewayError(402, 'insufficient_quota', 'insufficient_quota', 'Your prepaid credit is used up. Add credits in the Meterway console.'),
  originNotAllowed: (origin: string | undefined) =>
    new GatewayError(
      403,
      'permission_error',
      'origin_not_allowed',
      origin ? `The origin ${origin} is not allowed for this key.` : 'Requests need an Origin header allowed for this key.',
    ),
  modelNotAllowed: (model: string) =>
    new GatewayError(403, 'permission_error', 'model_not_allowed', `The model '${model}' is not allowed for this key.`, 'model'),
  clientBlocked: () => new GatewayError(403, 'permission_error', 'client_blocked', "The key's owner has blocked calls from your address."),
  endUserTokenRequired: () =>
    new GatewayError(
      401,
      'invalid_request_error',
      'end_user_token_required',
      "This key requires an end-user token: send your sign-in provider's token for the signed-in user in the Meterway-User-Token header.",
    ),
  invalidEndUserToken: (why: string) => new GatewayError(401, 'invalid_request_error', 'invalid_end_user_token', `The end-user token is not valid: ${why}.`),
  invalidEndUserName: () =>
    new GatewayError(
      400,
      'invalid_request_error',
      'invalid_end_user',
      `The Meterway-End-User header must be 1 to ${maxEndUserLength} visible ASCII characters (your own id of the user, without spaces).`,
    ),
  endUserBlocked: () => new GatewayError(403, 'permission_error', 'end_user_blocked', "The key's owner has blocked this end user."),
  budgetExceeded: () =>
    new GatewayError(429, 'insufficient_quota', 'budget_exceeded', "This key's monthly budget is spent. It resets on the 1st of the month (UTC)."),
  rateLimited: (retryAfterSeconds: number) => tooManyRequests('for this key', retryAfterSeconds),
  unknownKeysLimited: (retryAfterSeconds: number) => tooManyRequests('with unknown API keys from your address', retryAfterSeconds),
  clientRateLimited: (retryAfterSeconds: number) => tooManyRequests('from your address for this key', retryAfterSeconds),
  clientAllowanceSpent: (retryAfterSeconds: number) =>
    new GatewayError(
      429,
      'insufficient_quota',
      'client_allowance_exceeded',
      "Your address has used this key's daily allowance. It resets at midnight UTC.",
      null,
      retryAfterSeconds,
    ),
  endUserRateLimited: (retryAfterSeconds: number) => tooManyRequests('from this end user for this key', retryAfterSeconds),
  endUserAllowanceSpent: (period: 'day' | 'month', retryAfterSeconds: number) =>
    new GatewayError(
      429,
      'insufficient_quota',
      'end_user_allowance_exceeded',
      period === 'day'
        ? "This end user has used this key's daily allowance. It resets at midnight UTC."
        : "This end user has used this key's monthly allowance. It resets on the 1st of the month (UTC).",
      null,
      retryAfterSeconds,
    ),
  upstream: (charged = false) =>
    new GatewayError(
      502,
      'api_error',
      'upstream_error',
      charged
        ? 'The model provider failed after it had the request, so it may bill it: the call was charged what was reserved for it.'
        : 'The model provider failed. Nothing was charged.',
    ),
  unavailable: () =>
    new GatewayError(
      503,
      'api_error',
      'service_unavailable',
      `The gateway cannot reach its database. Nothing was charged. Retry in ${databaseRetryAfterSeconds} seconds.`,
      null,
      databaseRetryAfterSeconds,
    ),
  upstreamTimeout: (charged = false) =>
    new GatewayError(
      504,
      'api_error',
      'upstream_timeout',
      charged
        ? 'The model provider did not answer in time. It had the request and may bill it, so the call was charged what was reserved for it.'
        : 'The model provider did not answer in time. Nothing was charged.',
    ),
};

const asJson = 'Send one JSON object, with Content-Type: application/json.';

const sizeOf = (bytes: number) => (bytes % 1_048_576 === 0 ? `${bytes / 1_048_576} MiB` : `${Math.floor(bytes / 1024)} KiB`);

/**
 * A request Fastify refused before our code saw it (4xx), in OpenAI's shape: its body's refusals in
 * our words, with codes that do not name the framework (a client matches on them); any other as
 * `invalid_request` with Fastify's message.
 */
export function requestRefusal(error: { code?: string; message: string }, status: number, bodyLimit: number): GatewayError {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new GatewayError(400, 'invalid_request_error', 'invalid_json', `The request body is not valid JSON. ${asJson}`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GatewayError(400, 'invalid_request_error', 'invalid_json', `The request body is empty. ${asJson}`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError(415, 'invalid_request_error', 'unsupported_media_type', `The request body is not JSON. ${asJson}`);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError(
        413,
        'invalid_request_error',
        'request_too_large',
        `The request body is larger than ${sizeOf(bodyLimit)}, the most this endpoint takes.`,
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError(400, 'invalid_request_error', 'invalid_request', 'The request body is not as long as its Content-Length header says.');
    default:
      return new GatewayError(status, 'invalid_request_error', 'invalid_request', error.message);
  }
}

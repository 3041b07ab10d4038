import { STATUS_CODES } from 'node:http';
import { waitText } from '@meterway/service';

/** Kratos' default `message` per status (identity-protocol.md §2). */
const defaultMessages: Record<number, string> = {
  400: 'The request was malformed or contained invalid parameters',
  401: 'The request could not be authorized',
  403: 'The requested action was forbidden',
  404: 'The requested resource could not be found',
  410: 'The requested resource is no longer available because it has expired or is otherwise invalid.',
  429: 'Too many requests',
  500: 'An internal server error occurred, please contact the system administrator',
  503: 'The service is temporarily unavailable',
};

type KratosErrorInit = {
  id?: string;
  /** The body's `code`; equals the HTTP status except where Kratos says otherwise. */
  code?: number;
  reason?: string;
  message?: string;
  details?: Record<string, unknown>;
  /** Top-level fields beside `error`: redirect_browser_to, use_flow_id, expired_at, since. */
  extra?: Record<string, unknown>;
};

/** An error answered in Kratos' envelope `{error:{id,code,status,reason,message,details}}`. */
export class KratosError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly init: KratosErrorInit = {},
  ) {
    super(init.reason ?? init.message ?? defaultMessages[httpStatus] ?? 'error');
    this.name = 'KratosError';
  }

  body(requestId?: string) {
    const code = this.init.code ?? this.httpStatus;
    return {
      error: {
        ...(this.init.id ? { id: this.init.id } : {}),
        code,
        status: STATUS_CODES[code] ?? 'Error',
        ...(this.init.reason ? { reason: this.init.reason } : {}),
        message: this.init.message ?? defaultMessages[code] ?? STATUS_CODES[code] ?? 'error',
        ...(this.init.details ? { details: this.init.details } : {}),
        ...(requestId ? { request: requestId } : {}),
      },
      ...this.init.extra,
    };
  }
}

export const errors = {
  badRequest: (reason: string) => new KratosError(400, { reason }),
  notFound: (reason: string) => new KratosError(404, { reason }),
  flowParamMissing: () => new KratosError(400, { reason: 'The flow query parameter is missing or malformed.' }),
  csrf: (rejectReason: string, hint?: string) =>
    new KratosError(403, {
      id: 'security_csrf_violation',
      message: 'the request was rejected to protect you from Cross-Site-Request-Forgery',
      reason:
        'Please retry the flow and optionally clear your cookies. The request was rejected to protect you from Cross-Site-Request-Forgery (CSRF) which could cause account takeover, leaking personal information, and other serious security issues.',
      details: { docs: 'https://www.ory.com/docs/troubleshooting/csrf', ...(hint ? { hint } : {}), reject_reason: rejectReason },
    }),
  sessionAlreadyAvailable: (what: 'login' | 'registration' | 'recovery') =>
    new KratosError(400, {
      id: 'session_already_available',
      message: 'you are already logged in',
      reason:
        what === 'login'
          ? 'A valid session was detected and thus login is not possible. Did you forget to set `?refresh=true`?'
          : `A valid session was detected and thus ${what} is not possible.`,
    }),
  sessionAal1Required: () =>
    new KratosError(401, {
      id: 'session_aal1_required',
      message: 'aal2 and aal3 can only be requested if a session exists already',
      reason: 'You can not requested a higher AAL (AAL2/AAL3) without an active session.',
    }),
  sessionAal2Required: (redirectTo: string) =>
    new KratosError(403, {
      id: 'session_aal2_required',
      message: 'Session does not fulfill the requested Authenticator Assurance Level',
      reason:
        'An active session was found but it does not fulfill the requested Authenticator Assurance Level. Please verify yourself with a second factor to resolve this issue.',
      details: { redirect_browser_to: redirectTo },
      extra: { redirect_browser_to: redirectTo },
    }),
  sessionInactive: () =>
    new KratosError(401, {
      id: 'session_inactive',
      message: 'request does not have a valid authentication session',
      reason: 'No active session was found in this request.',
    }),
  /** whoami without a session: Kratos sends this body without an id. */
  noSession: () => new KratosError(401, { reason: 'No valid session credentials found in the request.' }),
  noSessionForSettings: () => new KratosError(401, { reason: 'A valid Ory Session Cookie or Ory Session Token is missing.' }),
  sessionRefreshRequired: (redirectTo: string) =>
    new KratosError(403, {
      id: 'session_refresh_required',
      reason: 'The login session is too old and thus not allowed to update these fields. Please re-authenticate.',
      extra: { redirect_browser_to: redirectTo },
    }),
  locationChangeRequired: (redirectTo: string) =>
    new KratosError(422, {
      id: 'browser_location_change_required',
      message: 'browser location change required',
      reason: `In order to complete this flow please redirect the browser to: ${redirectTo}`,
      extra: { redirect_browser_to: redirectTo },
    }),
  flowExpired: (expiredAt: Date, now: Date, useFlowId: string) => {
    const ago = (now.getTime() - expiredAt.getTime()) / 60_000;
    return new KratosError(410, {
      id: 'self_service_flow_expired',
      message: 'self-service flow expired',
      reason: `The self-service flow expired ${ago.toFixed(2)} minutes ago, initialize a new one.`,
      extra: { expired_at: expiredAt.toISOString(), since: (now.getTime() - expiredAt.getTime()) * 1_000_000, use_flow_id: useFlowId },
    });
  },
  flowExpiredOnGet: (kind: string, redirectTo: string) =>
    new KratosError(410, {
      id: 'self_service_flow_expired',
      message: 'self-service flow expired',
      reason: `The ${kind} flow has expired. Redirect the user to the ${kind} flow init endpoint to initialize a new ${kind} flow.`,
      details: { redirect_to: redirectTo },
    }),
  flowReplaced: (useFlowId: string) =>
    new KratosError(410, { id: 'self_service_flow_replaced', message: 'self-service flow replaced', extra: { use_flow_id: useFlowId } }),
  returnToForbidden: (url: string) =>
    new KratosError(400, { id: 'self_service_flow_return_to_forbidden', reason: `Requested return_to URL "${url}" is not allowed.` }),
  identityMismatch: () =>
    new KratosError(403, {
      id: 'security_identity_mismatch',
      reason: 'The request was made for another identity and has been blocked for security reasons.',
    }),
  /** The database does not answer (a restart, a failover): nothing was done, the same request may be sent again. */
  databaseUnavailable: (retryAfterSeconds: number) =>
    new KratosError(503, {
      reason: `The identity service cannot reach its database. Nothing was changed. Please wait ${retryAfterSeconds} seconds and try again.`,
      details: { retry_after: retryAfterSeconds },
    }),
  tooManyRequests: (retryAfterSeconds: number) =>
    new KratosError(429, {
      id: 'rate_limit_exceeded',
      reason: `Too many attempts. Try again in ${waitText(retryAfterSeconds)}.`,
      details: { retry_after: retryAfterSeconds },
    }),
};

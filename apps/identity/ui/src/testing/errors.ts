/** Kratos error envelopes (identity-protocol.md §2, §2.1), as the identity service sends them. */
const PUB = 'http://localhost:4000';

export const sessionRefreshRequired = (flowId: string) => ({
  error: {
    id: 'session_refresh_required',
    code: 403,
    status: 'Forbidden',
    reason: 'The login session is too old and thus not allowed to update these fields. Please re-authenticate.',
    message: 'The requested action was forbidden',
  },
  redirect_browser_to: `${PUB}/self-service/login/browser?refresh=true&return_to=${encodeURIComponent(`${PUB}/self-service/settings?flow=${flowId}`)}`,
});

export const sessionAal2Required = () => ({
  error: {
    id: 'session_aal2_required',
    code: 403,
    status: 'Forbidden',
    reason:
      'An active session was found but it does not fulfill the requested Authenticator Assurance Level. Please verify yourself with a second factor to resolve this issue.',
    message: 'Session does not fulfill the requested Authenticator Assurance Level',
    details: { redirect_browser_to: `${PUB}/self-service/login/browser?aal=aal2` },
  },
  redirect_browser_to: `${PUB}/self-service/login/browser?aal=aal2`,
});

/** getSettingsFlow without a session: no error id (§2.1, §16.4). */
export const noSession = () => ({
  error: {
    code: 401,
    status: 'Unauthorized',
    reason: 'A valid Ory Session Cookie or Ory Session Token is missing.',
    message: 'The request could not be authorized',
  },
});

/** A flow GET past expires_at: settings carries no id (§16.12); login does. */
export const flowGone = (id?: string) => ({
  error: {
    ...(id ? { id } : {}),
    code: 410,
    status: 'Gone',
    message: 'The requested resource is no longer available because it has expired or is otherwise invalid.',
  },
});

export const loginFlowExpired = (newFlowId: string) => ({
  error: {
    id: 'self_service_flow_expired',
    code: 410,
    status: 'Gone',
    reason: 'The self-service flow expired 3.05 minutes ago, initialize a new one.',
    message: 'self-service flow expired',
  },
  expired_at: '2026-03-02T11:00:00Z',
  since: 183000000000,
  use_flow_id: newFlowId,
});

export const browserLocationChangeRequired = (to: string) => ({
  error: {
    id: 'browser_location_change_required',
    code: 422,
    status: 'Unprocessable Entity',
    reason: `In order to complete this flow please redirect the browser to: ${to}`,
    message: 'browser location change required',
  },
  redirect_browser_to: to,
});

export const csrfViolation = () => ({
  error: {
    id: 'security_csrf_violation',
    code: 403,
    status: 'Forbidden',
    reason:
      'Please retry the flow and optionally clear your cookies. The request was rejected to protect you from Cross-Site-Request-Forgery (CSRF) which could cause account takeover, leaking personal information, and other serious security issues.',
    message: 'the request was rejected to protect you from Cross-Site-Request-Forgery',
    details: {
      docs: 'https://www.ory.com/docs/troubleshooting/csrf',
      hint: 'The anti-CSRF cookie was found but the CSRF token was not included in the HTTP request body (csrf_token) nor in the HTTP Header (X-CSRF-Token).',
      reject_reason:
        'The HTTP Cookie Header was set and a CSRF token was sent but they do not match. We recommend deleting all cookies for this domain and retrying the flow.',
    },
  },
});

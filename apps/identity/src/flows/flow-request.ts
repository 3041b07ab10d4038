import type { Session } from '../domain/sessions.js';

/**
 * What a flow step needs of the HTTP request it answers, without the web framework:
 * http/flow-request.ts builds it from Fastify's request and reply, unit tests build their own.
 */
export type FlowRequest = {
  /** The submission negotiates to JSON (Accept, or a JSON body): one of Kratos' API clients. */
  json: boolean;
  /** The Accept header alone negotiates to JSON: Kratos decides flow creation and verification on this. */
  acceptsJson: boolean;
  ip: string;
  userAgent: string;
  /** The URL the request was made to, as a flow records it. */
  url: string;
  /** The real CSRF token in the request's cookie, if it holds a well-formed one. */
  csrfCookie: string | undefined;
  /** The caller's active session; every call counts as use for the idle timeout. */
  currentSession: () => Promise<Session | undefined>;
  /** Throws 403 security_csrf_violation unless `sentToken` matches the request's CSRF cookie. */
  checkCsrf: (sentToken: unknown) => void;
  /** The browser carries the signed device cookie of this identity (http/device-cookie.ts). */
  isKnownDevice: (identityId: string) => boolean;
  cookies: FlowCookies;
};

/** The cookies a step sets on its answer, in the order it decides them. */
export type FlowCookies = {
  /** The request's real CSRF token, creating the cookie on first contact. */
  ensureCsrf: () => string;
  /** A new real CSRF token (another identity signed in, or an account was recovered). */
  rotateCsrf: () => string;
  setSession: (token: string, expiresAt: Date) => void;
  setDevice: (identityId: string) => void;
};

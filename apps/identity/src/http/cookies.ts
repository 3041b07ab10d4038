import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../context.js';
import { errors } from '../flows/errors.js';
import { csrfCookieName, newRealToken, tokensMatch } from '../flows/csrf.js';

export const sessionCookieName = 'ory_kratos_session';
const csrfMaxAgeSeconds = 365 * 24 * 60 * 60;

function baseCookie(ctx: IdentityContext) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: ctx.config.cookie.secure,
    ...(ctx.config.cookie.domain ? { domain: ctx.config.cookie.domain } : {}),
  };
}

export function setSessionCookie(reply: FastifyReply, ctx: IdentityContext, token: string, expiresAt: Date) {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - ctx.clock.now().getTime()) / 1000));
  reply.setCookie(sessionCookieName, token, { ...baseCookie(ctx), maxAge });
}

export function clearSessionCookie(reply: FastifyReply, ctx: IdentityContext) {
  reply.clearCookie(sessionCookieName, baseCookie(ctx));
}

export function readCsrfCookie(request: FastifyRequest, ctx: IdentityContext): string | undefined {
  const value = request.cookies[csrfCookieName(ctx.config.identityUrl)];
  return value && Buffer.from(value, 'base64').length === 32 ? value : undefined;
}

/** Issues a new real CSRF token (login with another identity, logout, recovery). */
export function rotateCsrf(reply: FastifyReply, ctx: IdentityContext): string {
  const token = newRealToken();
  reply.setCookie(csrfCookieName(ctx.config.identityUrl), token, { ...baseCookie(ctx), maxAge: csrfMaxAgeSeconds });
  return token;
}

/** The request's real CSRF token, creating the cookie on first contact. */
export function ensureCsrf(request: FastifyRequest, reply: FastifyReply, ctx: IdentityContext): string {
  return readCsrfCookie(request, ctx) ?? rotateCsrf(reply, ctx);
}

/** Throws 403 security_csrf_violation unless `sentToken` matches the request's CSRF cookie. */
export function checkCsrf(request: FastifyRequest, ctx: IdentityContext, sentToken: unknown) {
  const hint =
    request.headers['sec-fetch-mode'] === 'cors' || request.headers['sec-fetch-mode'] === 'same-origin'
      ? 'The anti-CSRF cookie was found but the CSRF token was not included in the HTTP request body (csrf_token) nor in the HTTP Header (X-CSRF-Token). Make sure your AJAX request sends cookies (credentials: "include").'
      : undefined;
  if (!request.headers.cookie) throw errors.csrf('The HTTP Cookie Header is empty or not set.', hint);
  const real = readCsrfCookie(request, ctx);
  if (!real) throw errors.csrf('The HTTP Cookie Header was set but did not include the anti-CSRF cookie.', hint);
  if (typeof sentToken !== 'string' || !tokensMatch(sentToken, real)) {
    throw errors.csrf(
      'The HTTP Cookie Header was set and a CSRF token was sent but they do not match. We recommend deleting all cookies for this domain and retrying the flow.',
      hint,
    );
  }
}

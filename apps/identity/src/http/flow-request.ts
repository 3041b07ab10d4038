import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../context.js';
import type { FlowRequest } from '../flows/flow-request.js';
import { checkCsrf, ensureCsrf, readCsrfCookie, rotateCsrf, setSessionCookie } from './cookies.js';
import { currentSession } from './current-session.js';
import { isKnownDevice, setDeviceCookie } from './device-cookie.js';
import { acceptsJson, isJsonRequest } from './negotiation.js';

/** The request as flow steps see it; the cookies they set go on `reply`. */
export function flowRequestOf(request: FastifyRequest, reply: FastifyReply, ctx: IdentityContext): FlowRequest {
  return {
    json: isJsonRequest(request),
    acceptsJson: acceptsJson(request),
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? '',
    url: `${ctx.config.identityUrl}${request.url}`,
    csrfCookie: readCsrfCookie(request, ctx),
    currentSession: () => currentSession(request, ctx),
    checkCsrf: (sentToken) => checkCsrf(request, ctx, sentToken),
    isKnownDevice: (identityId) => isKnownDevice(request, ctx, identityId),
    cookies: {
      ensureCsrf: () => ensureCsrf(request, reply, ctx),
      rotateCsrf: () => rotateCsrf(reply, ctx),
      setSession: (token, expiresAt) => setSessionCookie(reply, ctx, token, expiresAt),
      setDevice: (identityId) => setDeviceCookie(reply, ctx, identityId),
    },
  };
}

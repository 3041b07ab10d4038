import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { IdentityContext } from '../context.js';
import { hmac } from '../domain/tokens.js';

/**
 * A browser that signed in to an identity carries a cookie signed with the identity secret naming
 * it (OWASP's device cookies): failed logins others cause for that identity never hold it up.
 */
export const deviceCookieName = 'meterway_identity_device';
const maxAgeSeconds = 365 * 24 * 60 * 60;

const signature = (ctx: IdentityContext, identityId: string) => hmac(ctx.secret, `device:${identityId}`);

export function setDeviceCookie(reply: FastifyReply, ctx: IdentityContext, identityId: string): void {
  reply.setCookie(deviceCookieName, `${identityId}.${signature(ctx, identityId)}`, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.config.cookie.secure,
    maxAge: maxAgeSeconds,
    ...(ctx.config.cookie.domain ? { domain: ctx.config.cookie.domain } : {}),
  });
}

export function isKnownDevice(request: FastifyRequest, ctx: IdentityContext, identityId: string): boolean {
  const [named, signed] = (request.cookies[deviceCookieName] ?? '').split('.');
  if (named !== identityId || !signed) return false;
  const expected = Buffer.from(signature(ctx, identityId));
  const given = Buffer.from(signed);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

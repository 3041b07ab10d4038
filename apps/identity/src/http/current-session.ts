import type { FastifyRequest } from 'fastify';
import type { IdentityContext } from '../context.js';
import { findActiveSession, type Session } from '../domain/sessions.js';
import { sessionCookieName } from './cookies.js';

/** The request's active session, from the cookie, `X-Session-Token` or `Authorization: Bearer`. */
export async function currentSession(request: FastifyRequest, ctx: IdentityContext): Promise<Session | undefined> {
  const bearer = request.headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const header = request.headers['x-session-token'];
  const token = request.cookies[sessionCookieName] ?? (typeof header === 'string' ? header : undefined) ?? bearer;
  if (!token || token.length > 200) return undefined;
  return findActiveSession(ctx.db, token, ctx.clock.now());
}

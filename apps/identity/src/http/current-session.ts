import type { FastifyRequest } from 'fastify';
import type { IdentityContext } from '../context.js';
import { findActiveSession, recordActivity, type Session } from '../domain/sessions.js';
import { sessionCookieName } from './cookies.js';

/**
 * The request's active session, from the cookie, `X-Session-Token` or `Authorization: Bearer`; any
 * request that presents it (whoami above all) counts as use for the idle timeout.
 */
export async function currentSession(request: FastifyRequest, ctx: IdentityContext): Promise<Session | undefined> {
  const bearer = request.headers.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const header = request.headers['x-session-token'];
  const token = request.cookies[sessionCookieName] ?? (typeof header === 'string' ? header : undefined) ?? bearer;
  if (!token || token.length > 200) return undefined;
  const now = ctx.clock.now();
  const session = await findActiveSession(ctx.db, token, now, ctx.config.sessionIdleTimeoutMs);
  return session && recordActivity(ctx.db, session, now);
}

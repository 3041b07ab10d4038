import type { IdentityContext } from '../context.js';
import type { AuthenticationMethod } from '../db/schema/sessions.js';
import { createSession, revokeSession, type Session } from '../domain/sessions.js';
import type { FlowRequest } from './flow-request.js';

/**
 * Issues a new session (new id, new token) and retires the one the request came with, so a
 * session id never survives a login or a change of privilege (no fixation). The CSRF cookie is
 * renewed when the identity changes, which invalidates flows fetched before.
 */
export async function issueSession(
  ctx: IdentityContext,
  req: FlowRequest,
  input: { identityId: string; aal: 'aal1' | 'aal2'; methods: AuthenticationMethod[]; previous?: Session | undefined; authenticatedAt?: Date },
): Promise<Session> {
  const now = ctx.clock.now();
  const { session, token } = await createSession(ctx.db, {
    identityId: input.identityId,
    aal: input.aal,
    methods: input.methods,
    device: { ip_address: req.ip, user_agent: req.userAgent.slice(0, 512), location: '' },
    now,
    ...(input.authenticatedAt ? { authenticatedAt: input.authenticatedAt } : {}),
  });
  if (input.previous) await revokeSession(ctx.db, input.previous.id);
  req.cookies.setSession(token, session.expiresAt);
  if (input.previous?.identityId !== input.identityId) req.cookies.rotateCsrf();
  return session;
}

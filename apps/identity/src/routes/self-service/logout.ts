import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { logoutToken, revokeSession } from '../../domain/sessions.js';
import { errors, KratosError } from '../../flows/errors.js';
import { clearSessionCookie, rotateCsrf } from '../../http/cookies.js';
import { currentSession } from '../../http/current-session.js';
import { isJsonRequest } from '../../http/negotiation.js';
import { returnToFrom } from '../../flows/flow-urls.js';

const sameToken = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export async function logoutRoutes(app: FastifyInstance, ctx: IdentityContext) {
  app.get<{ Querystring: { return_to?: string } }>('/self-service/logout/browser', async (request) => {
    const returnTo = returnToFrom(ctx, request.query.return_to);
    const session = await currentSession(request, ctx);
    if (!session) throw errors.sessionInactive();
    const token = logoutToken(ctx.secret, session.id);
    const url = new URL(`${ctx.config.identityUrl}/self-service/logout`);
    url.searchParams.set('token', token);
    if (returnTo) url.searchParams.set('return_to', returnTo);
    return { logout_token: token, logout_url: url.toString() };
  });

  app.get<{ Querystring: { token?: string; return_to?: string } }>('/self-service/logout', async (request, reply) => {
    const returnTo = returnToFrom(ctx, request.query.return_to);
    const { token } = request.query;
    if (!token) throw errors.badRequest('Please include a token in the URL query.');
    const session = await currentSession(request, ctx);
    if (!session) throw errors.sessionInactive();
    if (!sameToken(token, logoutToken(ctx.secret, session.id))) {
      throw new KratosError(403, { reason: 'Unable to log out because the logout token in the URL query does not match the session cookie.' });
    }
    await revokeSession(ctx.db, session.id);
    clearSessionCookie(reply, ctx);
    rotateCsrf(reply, ctx);
    if (isJsonRequest(request)) return reply.code(204).send();
    return reply.redirect(returnTo ?? ctx.config.ui.afterLogout, 303);
  });
}

import { isDatabaseUnavailable } from '@meterway/service';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { type IdentityView, loadIdentityView } from '../../domain/identities.js';
import { listOtherSessions, revokeIdentitySession, revokeOtherSessions, type Session, serializeSession } from '../../domain/sessions.js';
import { errors } from '../../flows/errors.js';
import { currentSession } from '../../http/current-session.js';

export async function sessionRoutes(app: FastifyInstance, ctx: IdentityContext) {
  /**
   * The session, if it satisfies the highest assurance level the identity has: an aal1 session of
   * an identity with TOTP gets 403 session_aal2_required until the second factor is done.
   */
  const requireSession = async (request: FastifyRequest): Promise<{ session: Session; view: IdentityView }> => {
    const session = await currentSession(request, ctx);
    if (!session) throw errors.noSession();
    const view = await loadIdentityView(ctx.db, session.identityId, ctx.config.identityUrl);
    if (session.aal === 'aal1' && view.hasTotp) {
      throw errors.sessionAal2Required(`${ctx.config.identityUrl}/self-service/login/browser?aal=aal2`);
    }
    return { session, view };
  };

  app.route<{ Querystring: { tokenize_as?: string } }>({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/sessions/whoami',
    handler: async (request, reply) => {
      const { session, view } = await requireSession(request);
      if (request.query.tokenize_as) throw errors.badRequest(`Unable to find tokenizer template "${request.query.tokenize_as}".`);
      reply.header('x-kratos-authenticated-identity-id', session.identityId);
      reply.header('cache-control', 'private, no-store');
      return serializeSession(ctx.db, session, ctx.config.identityUrl, view);
    },
  });

  app.get('/sessions', async (request, reply) => {
    const { session } = await requireSession(request);
    const others = await listOtherSessions(ctx.db, session, ctx.clock.now(), ctx.config.sessionIdleTimeoutMs);
    reply.header('x-total-count', String(others.length));
    return Promise.all(others.map((other) => serializeSession(ctx.db, other, ctx.config.identityUrl)));
  });

  app.delete('/sessions', async (request) => ({ count: await revokeOtherSessions(ctx.db, (await requireSession(request)).session) }));

  app.delete<{ Params: { id: string } }>('/sessions/:id', async (request, reply) => {
    const { session } = await requireSession(request);
    if (request.params.id === session.id) throw errors.badRequest('You tried to revoke the current session. Use the logout flow instead.');
    // Another identity's session id answers like an unknown one (so does one that is no UUID);
    // a database that went away is still a 503.
    const revoked = await revokeIdentitySession(ctx.db, session.identityId, request.params.id).catch((error: unknown) => {
      if (isDatabaseUnavailable(error)) throw error;
      return false;
    });
    if (!revoked) {
      throw errors.notFound('Unable to locate the resource');
    }
    return reply.code(204).send();
  });
}

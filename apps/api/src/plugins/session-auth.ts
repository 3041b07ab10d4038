import type { Role } from '@meterway/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiDb } from '../db/index.js';
import { ensurePerson, inNamedOrganization, type Viewer } from '../domain/people/ensure-person.js';
import { AppError } from '../errors/app-error.js';
import type { IdentitySessions } from './identity-sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    viewer: Viewer | null;
  }
  interface FastifyContextConfig {
    /** The roles in the current organisation that may call a /bff route (contracts' rolesAllowedTo). */
    roles?: readonly Role[];
  }
}

/** The signed-in person of a /bff or /admin request; the route's preHandler guarantees it. */
export function viewerOf(request: FastifyRequest): Viewer {
  if (!request.viewer) throw new AppError('Unauthorized', 'Sign in to continue.');
  return request.viewer;
}

/** The header a console tab names the organisation it shows in (issue #53); without it, the person's current one. */
export const organizationHeader = 'meterway-organization';

const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

/**
 * Authenticates every request of the scope it is registered in: identity's whoami decides who the
 * cookies belong to; the person and organisation are provisioned on first sight. The request acts in
 * the organisation its tab names (Meterway-Organization), which the person must be a member of
 * (409 otherwise), else in the person's current one. A route that names `config.roles` is refused
 * (403) to a person whose role in that organisation is not among them.
 */
export function requireViewer(app: FastifyInstance, deps: { db: ApiDb['db']; sessions: IdentitySessions; systemAdminEmails: readonly string[] }) {
  app.decorateRequest('viewer', null);
  // onRequest: who is asking is settled before the body is even read, so strangers learn nothing.
  app.addHook('onRequest', async (request, reply) => {
    const cookie = request.headers.cookie;
    if (!cookie) throw new AppError('Unauthorized', 'Sign in to continue.');
    const result = await deps.sessions.whoami(cookie);
    if (result.outcome === 'no-session') throw new AppError('Unauthorized', 'Sign in to continue.');
    if (result.outcome === 'unavailable')
      throw new AppError('ServiceUnavailable', 'The identity service does not answer. Try again in a moment.', { retryAfter: 2 });
    if (result.outcome === 'forbidden') return reply.code(403).type('application/json').send(result.body);
    if (result.outcome !== 'session') return reply;
    if (!result.session.verified) {
      throw new AppError('Unauthorized', 'Verify your e-mail address to continue.', { code: 'EmailNotVerified', email: result.session.email });
    }
    const person = await ensurePerson(deps.db, { ...result.session, systemAdminEmails: deps.systemAdminEmails });
    const named = request.headers[organizationHeader];
    request.viewer = typeof named === 'string' && isUuid(named) ? await inNamedOrganization(deps.db, person, named) : person;
    const allowed = request.routeOptions.config.roles;
    if (allowed && !allowed.includes(request.viewer.role)) {
      throw new AppError('Forbidden', `Your role in ${request.viewer.organizationName} (${request.viewer.role}) does not allow this.`);
    }
  });
}

/** Admin routes: a system admin only (403 otherwise). */
export function requireSystemAdmin(app: FastifyInstance) {
  app.addHook('onRequest', async (request) => {
    if (!viewerOf(request).systemAdmin) throw new AppError('Forbidden', 'Only system administrators can do this.');
  });
}

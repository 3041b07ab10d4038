import {
  invitationAcceptSchema,
  invitationInputSchema,
  invitationParamsSchema,
  invitationSchema,
  memberListSchema,
  memberParamsSchema,
  memberRemovalQuerySchema,
  memberRoleInputSchema,
  memberSchema,
  organizationMembershipSchema,
  rolesAllowedTo,
} from '@meterway/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import { acceptInvitation } from '../../domain/members/accept-invitation.js';
import { changeMemberRole } from '../../domain/members/change-member-role.js';
import { inviteMember } from '../../domain/members/invite-member.js';
import { listMembers } from '../../domain/members/list-members.js';
import { removeMember } from '../../domain/members/remove-member.js';
import { resendInvitation } from '../../domain/members/resend-invitation.js';
import { revokeInvitation } from '../../domain/members/revoke-invitation.js';
import { mutationRateLimit } from '../../plugins/rate-limit.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

const managers = { roles: rolesAllowedTo.manageMembers };

export function memberRoutes(app: FastifyZodInstance, { db, mailer, config, meter }: RouteDeps) {
  const mail = (request: FastifyRequest) => ({
    db: db.db,
    mailer,
    consoleUrl: config.consoleUrl,
    onMailError: (error: unknown) => request.log.error({ err: error }, 'the invitation mail could not be sent'),
  });

  app.get('/bff/members', { config: managers, schema: { response: { 200: memberListSchema } } }, async (request) =>
    listMembers(db.db, viewerOf(request), new Date()),
  );

  app.put(
    '/bff/members/:personId',
    { config: { ...mutationRateLimit, ...managers }, schema: { params: memberParamsSchema, body: memberRoleInputSchema, response: { 200: memberSchema } } },
    async (request) => changeMemberRole(db.db, viewerOf(request), request.params.personId, request.body.role),
  );

  app.delete(
    '/bff/members/:personId',
    {
      config: { ...mutationRateLimit, ...managers },
      schema: { params: memberParamsSchema, querystring: memberRemovalQuerySchema, response: { 204: z.null() } },
    },
    async (request, reply) => {
      const deleted = await removeMember(db.db, viewerOf(request), request.params.personId, { keys: request.query.keys, now: new Date() });
      // As when a key is deleted on its own: this instance's gateway stops admitting its calls at once.
      for (const keyId of deleted) meter.forgetKey(keyId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/bff/invitations',
    { config: { ...mutationRateLimit, ...managers }, schema: { body: invitationInputSchema, response: { 201: invitationSchema } } },
    async (request, reply) => reply.code(201).send(await inviteMember(mail(request), viewerOf(request), request.body, new Date())),
  );

  app.delete(
    '/bff/invitations/:invitationId',
    { config: { ...mutationRateLimit, ...managers }, schema: { params: invitationParamsSchema, response: { 204: z.null() } } },
    async (request, reply) => {
      await revokeInvitation(db.db, viewerOf(request), request.params.invitationId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/bff/invitations/:invitationId/resend',
    { config: { ...mutationRateLimit, ...managers }, schema: { params: invitationParamsSchema, response: { 200: invitationSchema } } },
    async (request) => resendInvitation(mail(request), viewerOf(request), request.params.invitationId, new Date()),
  );

  // Whoever holds the link and is signed in with the invited address, whatever their role where they work now.
  app.post(
    '/bff/invitations/accept',
    {
      config: { ...mutationRateLimit, roles: rolesAllowedTo.seeOrganization },
      schema: { body: invitationAcceptSchema, response: { 200: organizationMembershipSchema } },
    },
    async (request) => acceptInvitation(db.db, viewerOf(request), request.body.token, new Date()),
  );
}

import {
  currentOrganizationInputSchema,
  organizationInputSchema,
  organizationMembershipSchema,
  organizationParamsSchema,
  rolesAllowedTo,
} from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import { createOrganization } from '../../domain/people/create-organization.js';
import { leaveOrganization } from '../../domain/people/leave-organization.js';
import { switchOrganization } from '../../domain/people/switch-organization.js';
import { mutationRateLimit } from '../../plugins/rate-limit.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

/** A person's own organisations: any role may switch between them, create one, or leave one. */
const anyMember = { ...mutationRateLimit, roles: rolesAllowedTo.seeOrganization };

export function organizationRoutes(app: FastifyZodInstance, { db }: RouteDeps) {
  app.put(
    '/bff/current-organization',
    { config: anyMember, schema: { body: currentOrganizationInputSchema, response: { 200: organizationMembershipSchema } } },
    async (request) => switchOrganization(db.db, viewerOf(request), request.body.organizationId),
  );

  app.post(
    '/bff/organizations',
    { config: anyMember, schema: { body: organizationInputSchema, response: { 201: organizationMembershipSchema } } },
    async (request, reply) => reply.code(201).send(await createOrganization(db.db, viewerOf(request), request.body)),
  );

  app.post(
    '/bff/organizations/:organizationId/leave',
    { config: anyMember, schema: { params: organizationParamsSchema, response: { 200: organizationMembershipSchema } } },
    async (request) => leaveOrganization(db.db, viewerOf(request), request.params.organizationId),
  );
}

import { feedbackCreatedSchema, feedbackInputSchema, rolesAllowedTo } from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import { submitFeedback } from '../../domain/feedback/submit-feedback.js';
import { mutationRateLimit } from '../../plugins/rate-limit.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

export function feedbackRoutes(app: FastifyZodInstance, { db }: RouteDeps) {
  app.post(
    '/bff/feedback',
    {
      config: { ...mutationRateLimit, roles: rolesAllowedTo.seeOrganization },
      schema: { body: feedbackInputSchema, response: { 201: feedbackCreatedSchema } },
    },
    async (request, reply) => reply.code(201).send(await submitFeedback(db.db, viewerOf(request), request.body)),
  );
}

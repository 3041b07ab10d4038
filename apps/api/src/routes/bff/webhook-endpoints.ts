import {
  rolesAllowedTo,
  webhookDeliveryListSchema,
  webhookEndpointInputSchema,
  webhookEndpointListSchema,
  webhookEndpointParamsSchema,
  webhookEndpointSchema,
} from '@meterway/contracts';
import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookDeliveries, listWebhookEndpoints } from '../../domain/webhooks/webhook-endpoints.js';
import { mutationRateLimit } from '../../plugins/rate-limit.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

const managers = { roles: rolesAllowedTo.manageWebhooks };
const change = { ...mutationRateLimit, ...managers };

/** Webhook endpoints (issue #23): the secret only in the answer to create; deliveries are sent by plugins/webhooks.ts. */
export function webhookEndpointRoutes(app: FastifyZodInstance, { db, config }: RouteDeps) {
  app.get('/bff/webhook-endpoints', { config: managers, schema: { response: { 200: webhookEndpointListSchema } } }, async (request) => ({
    webhookEndpoints: await listWebhookEndpoints(db.db, viewerOf(request)),
  }));

  app.post(
    '/bff/webhook-endpoints',
    { config: change, schema: { body: webhookEndpointInputSchema, response: { 201: webhookEndpointSchema } } },
    async (request, reply) =>
      reply.code(201).send(await createWebhookEndpoint(db.db, viewerOf(request), request.body, { production: config.production, now: new Date() })),
  );

  app.delete(
    '/bff/webhook-endpoints/:webhookEndpointId',
    { config: change, schema: { params: webhookEndpointParamsSchema, response: { 204: z.null() } } },
    async (request, reply) => {
      await deleteWebhookEndpoint(db.db, viewerOf(request), request.params.webhookEndpointId, new Date());
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/bff/webhook-endpoints/:webhookEndpointId/deliveries',
    { config: managers, schema: { params: webhookEndpointParamsSchema, response: { 200: webhookDeliveryListSchema } } },
    async (request) => ({ deliveries: await listWebhookDeliveries(db.db, viewerOf(request), request.params.webhookEndpointId) }),
  );
}

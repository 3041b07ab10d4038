import {
  organizationKeyParamsSchema,
  publishableKeyDeletionSchema,
  publishableKeyInputSchema,
  publishableKeyListSchema,
  publishableKeySchema,
} from '@meterway/contracts';
import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import { actingWith } from '../../domain/developer/find-secret-key.js';
import { createKey, deleteKey, listKeys, updateKey } from '../../domain/keys/publishable-keys.js';
import { developerKeyOf } from '../../plugins/admin-key-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';
import { pricedOnly } from '../bff/priced-models.js';
import { developerFailures, developerRoute, notFound } from './openapi.js';

/**
 * The organisation's publishable keys over HTTP, with the BFF's rules and domain functions: only
 * priced models, 404 for another organisation's key, the change in the audit log naming the
 * secret key that made it.
 */
export function publishableKeyRoutes(app: FastifyZodInstance, { db, meter, pricing }: RouteDeps) {
  // As on the BFF: this instance's gateway stops admitting the key's calls from holds reserved before the change.
  const changed = <T>(keyId: string, result: T): T => {
    meter.forgetKey(keyId);
    return result;
  };
  const keyForm = "The BFF's key form: name, budget (dollars a month), allowedOrigins and the per-key controls; allowedModels must be priced models.";

  app.get(
    '/publishable-keys',
    {
      schema: {
        ...developerRoute,
        summary: 'List publishable keys',
        description: "The organisation's live publishable keys, oldest first, with this month's spend.",
        response: { 200: publishableKeyListSchema, ...developerFailures },
      },
    },
    async (request) => ({ publishableKeys: await listKeys(db.db, developerKeyOf(request), new Date()) }),
  );

  app.post(
    '/publishable-keys',
    {
      schema: {
        ...developerRoute,
        summary: 'Create a publishable key',
        description: `${keyForm} A new key caps each visitor address at 30 requests a minute and $1 a day unless the form says otherwise.`,
        body: publishableKeyInputSchema,
        response: { 201: publishableKeySchema, ...developerFailures },
      },
    },
    async (request, reply) => reply.code(201).send(await createKey(db.db, actingWith(developerKeyOf(request)), pricedOnly(pricing, request.body), new Date())),
  );

  app.put(
    '/publishable-keys/:publishableKeyId',
    {
      schema: {
        ...developerRoute,
        summary: 'Update a publishable key',
        description: `${keyForm} A per-key control left out stays as it is.`,
        params: organizationKeyParamsSchema,
        body: publishableKeyInputSchema,
        response: { 200: publishableKeySchema, ...developerFailures, ...notFound },
      },
    },
    async (request) => {
      const { publishableKeyId } = request.params;
      const acting = actingWith(developerKeyOf(request));
      return changed(publishableKeyId, await updateKey(db.db, acting, publishableKeyId, pricedOnly(pricing, request.body), new Date()));
    },
  );

  app.delete(
    '/publishable-keys/:publishableKeyId',
    {
      schema: {
        ...developerRoute,
        summary: 'Delete a publishable key',
        description:
          "The key stops working at once (a rolled key's previous value too); its usage stays listed. An optional JSON body gives the reason the audit log records.",
        params: organizationKeyParamsSchema,
        body: publishableKeyDeletionSchema,
        response: { 204: z.null().describe('Deleted.'), ...developerFailures, ...notFound },
      },
    },
    async (request, reply) => {
      const { publishableKeyId } = request.params;
      changed(publishableKeyId, await deleteKey(db.db, actingWith(developerKeyOf(request)), publishableKeyId, new Date(), request.body?.reason));
      return reply.code(204).send(null);
    },
  );
}

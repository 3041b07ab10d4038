import {
  publishableKeyDeletionSchema,
  publishableKeyRollSchema,
  rolesAllowedTo,
  secretKeyInputSchema,
  secretKeyListSchema,
  secretKeyParamsSchema,
  secretKeySchema,
  secretKeyUpdateSchema,
} from '@meterway/contracts';
import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import { secretKeys } from '../../domain/keys/secret-keys.js';
import { mutationRateLimit } from '../../plugins/rate-limit.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';
import { pricedOnly } from './priced-models.js';

const keyManagers = { roles: rolesAllowedTo.manageKeys };
const keyChange = { ...mutationRateLimit, ...keyManagers };

/** Secret keys (issue #23): the same rules as publishable keys, without origins; the value only in the answers to create and roll. */
export function secretKeyRoutes(app: FastifyZodInstance, { db, meter, pricing, hashSecretKey }: RouteDeps) {
  const keys = secretKeys(db.db, hashSecretKey);
  // This instance's gateway stops admitting the key's calls from holds reserved before a change at once.
  const changed = <T>(keyId: string, result: T): T => {
    meter.forgetKey(keyId);
    return result;
  };

  app.get('/bff/secret-keys', { config: keyManagers, schema: { response: { 200: secretKeyListSchema } } }, async (request) => ({
    secretKeys: await keys.list(viewerOf(request), new Date()),
  }));

  app.post('/bff/secret-keys', { config: keyChange, schema: { body: secretKeyInputSchema, response: { 201: secretKeySchema } } }, async (request, reply) =>
    reply.code(201).send(await keys.create(viewerOf(request), pricedOnly(pricing, request.body), new Date())),
  );

  app.put(
    '/bff/secret-keys/:secretKeyId',
    { config: keyChange, schema: { params: secretKeyParamsSchema, body: secretKeyUpdateSchema, response: { 200: secretKeySchema } } },
    async (request) => {
      const { secretKeyId } = request.params;
      return changed(secretKeyId, await keys.update(viewerOf(request), secretKeyId, pricedOnly(pricing, request.body), new Date()));
    },
  );

  app.post(
    '/bff/secret-keys/:secretKeyId/roll',
    { config: keyChange, schema: { params: secretKeyParamsSchema, body: publishableKeyRollSchema, response: { 200: secretKeySchema } } },
    async (request) => {
      const { secretKeyId } = request.params;
      return changed(secretKeyId, await keys.roll(viewerOf(request), secretKeyId, request.body.overlapHours, new Date()));
    },
  );

  app.delete(
    '/bff/secret-keys/:secretKeyId',
    { config: keyChange, schema: { params: secretKeyParamsSchema, body: publishableKeyDeletionSchema, response: { 204: z.null() } } },
    async (request, reply) => {
      const { secretKeyId } = request.params;
      changed(secretKeyId, await keys.delete(viewerOf(request), secretKeyId, new Date(), request.body?.reason));
      return reply.code(204).send(null);
    },
  );
}

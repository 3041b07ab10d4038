import {
  keyBlockInputSchema,
  keyBlockListSchema,
  keyBlockParamsSchema,
  keyBlockSchema,
  keyCallersSchema,
  pricedModelListSchema,
  rolesAllowedTo,
  type PublishableKeyFields,
  publishableKeyDeletionSchema,
  publishableKeyInputSchema,
  publishableKeyListSchema,
  publishableKeyParamsSchema,
  publishableKeyRollSchema,
  publishableKeySchema,
} from '@meterway/contracts';
import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import { addBlock, listBlocks, removeBlock } from '../../domain/keys/key-blocks.js';
import { listCallers } from '../../domain/keys/key-callers.js';
import { createKey, deleteKey, listKeys, rollKey, updateKey } from '../../domain/keys/publishable-keys.js';
import { clientOf } from '@meterway/service';
import { pricedModelsOf } from '../../gateway/pricing.js';
import { mutationRateLimit } from '../../plugins/rate-limit.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';
import { pricedOnly } from './priced-models.js';

const keyManagers = { roles: rolesAllowedTo.manageKeys };
const keyChange = { ...mutationRateLimit, ...keyManagers };

export function publishableKeyRoutes(app: FastifyZodInstance, { db, meter, pricing }: RouteDeps) {
  const priced = (input: PublishableKeyFields) => pricedOnly(pricing, input);

  // This instance's gateway stops admitting the key's calls from holds reserved before a change at
  // once (other instances within stockTrustMs).
  const changed = <T>(keyId: string, result: T): T => {
    meter.forgetKey(keyId);
    return result;
  };

  app.get('/bff/models', { config: { roles: rolesAllowedTo.seeOrganization }, schema: { response: { 200: pricedModelListSchema } } }, async () => ({
    priceListVersion: pricing.version,
    models: pricedModelsOf(pricing),
  }));

  app.get('/bff/publishable-keys', { config: keyManagers, schema: { response: { 200: publishableKeyListSchema } } }, async (request) => ({
    publishableKeys: await listKeys(db.db, viewerOf(request), new Date()),
  }));

  app.post(
    '/bff/publishable-keys',
    { config: keyChange, schema: { body: publishableKeyInputSchema, response: { 201: publishableKeySchema } } },
    async (request, reply) => reply.code(201).send(await createKey(db.db, viewerOf(request), priced(request.body), new Date())),
  );

  app.put(
    '/bff/publishable-keys/:publishableKeyId',
    { config: keyChange, schema: { params: publishableKeyParamsSchema, body: publishableKeyInputSchema, response: { 200: publishableKeySchema } } },
    async (request) =>
      changed(request.params.publishableKeyId, await updateKey(db.db, viewerOf(request), request.params.publishableKeyId, priced(request.body), new Date())),
  );

  app.post(
    '/bff/publishable-keys/:publishableKeyId/roll',
    { config: keyChange, schema: { params: publishableKeyParamsSchema, body: publishableKeyRollSchema, response: { 200: publishableKeySchema } } },
    async (request) =>
      changed(request.params.publishableKeyId, await rollKey(db.db, viewerOf(request), request.params.publishableKeyId, request.body.overlapHours, new Date())),
  );

  app.delete(
    '/bff/publishable-keys/:publishableKeyId',
    { config: keyChange, schema: { params: publishableKeyParamsSchema, body: publishableKeyDeletionSchema, response: { 204: z.null() } } },
    async (request, reply) => {
      const { publishableKeyId } = request.params;
      changed(publishableKeyId, await deleteKey(db.db, viewerOf(request), publishableKeyId, new Date(), request.body?.reason));
      return reply.code(204).send(null);
    },
  );

  // Who called the key in the last 24 hours, to block the abusive ones.
  app.get(
    '/bff/publishable-keys/:publishableKeyId/callers',
    { config: keyManagers, schema: { params: publishableKeyParamsSchema, response: { 200: keyCallersSchema } } },
    async (request) => listCallers(db.db, viewerOf(request), request.params.publishableKeyId, new Date()),
  );

  // Blocked client addresses and end users: refused by the gateway at once (this instance) or at its next admission (others).
  app.get(
    '/bff/publishable-keys/:publishableKeyId/blocks',
    { config: keyManagers, schema: { params: publishableKeyParamsSchema, response: { 200: keyBlockListSchema } } },
    async (request) => ({ blocks: await listBlocks(db.db, viewerOf(request), request.params.publishableKeyId) }),
  );

  app.post(
    '/bff/publishable-keys/:publishableKeyId/blocks',
    { config: keyChange, schema: { params: publishableKeyParamsSchema, body: keyBlockInputSchema, response: { 201: keyBlockSchema } } },
    async (request, reply) => {
      const { publishableKeyId } = request.params;
      const { clientAddress, endUser = '' } = request.body;
      // An IPv6 /64, as the callers list shows a client, is blocked as any address in it.
      const blocked = clientAddress !== undefined ? { client: clientOf(clientAddress.replace(/\/64$/, '')) } : { endUser };
      const block = await addBlock(db.db, viewerOf(request), publishableKeyId, blocked, new Date());
      return reply.code(201).send(changed(publishableKeyId, block));
    },
  );

  app.delete(
    '/bff/publishable-keys/:publishableKeyId/blocks/:blockId',
    { config: keyChange, schema: { params: keyBlockParamsSchema, response: { 204: z.null() } } },
    async (request, reply) => {
      const { publishableKeyId, blockId } = request.params;
      changed(publishableKeyId, await removeBlock(db.db, viewerOf(request), publishableKeyId, blockId, new Date()));
      return reply.code(204).send(null);
    },
  );
}

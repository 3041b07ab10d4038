import { creditGrantInputSchema, creditGrantSchema, listQuerySchema, personPageSchema } from '@meterway/contracts';
import { z } from 'zod';
import type { RouteDeps } from '../../deps.js';
import { grantPersonCredit } from '../../domain/admin/grant-person-credit.js';
import { listPersons } from '../../domain/admin/list-persons.js';
import { mutationRateLimit } from '../../plugins/rate-limit.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

const personParamsSchema = z.object({ personId: z.uuid({ error: 'personId must be a UUID' }) });

export function personRoutes(app: FastifyZodInstance, { db, reads, secret }: RouteDeps) {
  app.get('/admin/persons', { schema: { querystring: listQuerySchema, response: { 200: personPageSchema } } }, async (request) =>
    reads((db) => listPersons({ db, secret }, request.query)),
  );

  app.post(
    '/admin/persons/:personId/credit-grants',
    { config: mutationRateLimit, schema: { params: personParamsSchema, body: creditGrantInputSchema, response: { 201: creditGrantSchema } } },
    async (request, reply) => reply.code(201).send(await grantPersonCredit(db.db, viewerOf(request), request.params.personId, request.body, new Date())),
  );
}

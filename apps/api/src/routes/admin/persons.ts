import { listQuerySchema, personPageSchema } from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import { listPersons } from '../../domain/admin/list-persons.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

export function personRoutes(app: FastifyZodInstance, { db, secret }: RouteDeps) {
  app.get('/admin/persons', { schema: { querystring: listQuerySchema, response: { 200: personPageSchema } } }, async (request) =>
    listPersons({ db: db.db, secret }, request.query),
  );
}

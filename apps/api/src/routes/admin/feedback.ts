import { feedbackPageSchema, listQuerySchema } from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import { listFeedback } from '../../domain/admin/list-feedback.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

export function adminFeedbackRoutes(app: FastifyZodInstance, { reads, secret }: RouteDeps) {
  app.get('/admin/feedback', { schema: { querystring: listQuerySchema, response: { 200: feedbackPageSchema } } }, async (request) =>
    reads((db) => listFeedback({ db, secret }, request.query)),
  );
}

import { chatCompletionPageSchema, chatCompletionQuerySchema, rolesAllowedTo } from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import { listChatCompletions } from '../../domain/usage/list-chat-completions.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

export function chatCompletionRoutes(app: FastifyZodInstance, { reads, secret }: RouteDeps) {
  app.get(
    '/bff/chat-completions',
    { config: { roles: rolesAllowedTo.seeOrganization }, schema: { querystring: chatCompletionQuerySchema, response: { 200: chatCompletionPageSchema } } },
    async (request) => reads((db) => listChatCompletions({ db, secret }, viewerOf(request), request.query)),
  );
}

import type { FastifyInstance } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { fetchSettingsFlow, startSettings, submitSettings } from '../../flows/settings-steps.js';
import { submittedBody } from '../../http/body.js';
import { flowRequestOf } from '../../http/flow-request.js';
import { sendOutcome } from '../../http/send-outcome.js';
import type { FlowQuery } from './flow-query.js';

export async function settingsRoutes(app: FastifyInstance, ctx: IdentityContext) {
  app.get<{ Querystring: FlowQuery }>('/self-service/settings/browser', async (request, reply) => {
    const req = flowRequestOf(request, reply, ctx);
    return sendOutcome(reply, req, await startSettings(ctx, req, { returnTo: request.query.return_to }), req.acceptsJson);
  });

  // Always JSON: browsers are sent to the settings screen, which fetches this.
  app.get<{ Querystring: FlowQuery }>('/self-service/settings/flows', async (request, reply) => {
    const req = flowRequestOf(request, reply, ctx);
    return sendOutcome(reply, req, await fetchSettingsFlow(ctx, req, { flowId: request.query.id }), true);
  });

  // The session is checked before the flow id (as Kratos does), so the step reads the raw parameter.
  app.post<{ Querystring: FlowQuery }>('/self-service/settings', async (request, reply) => {
    const req = flowRequestOf(request, reply, ctx);
    const outcome = await submitSettings(ctx, req, { flowId: request.query.flow, body: submittedBody(request.body) });
    return sendOutcome(reply, req, outcome, req.json);
  });
}

import type { FastifyInstance } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { fetchBrowserFlow, flowIdFrom } from '../../flows/flow-lookup.js';
import { serializeFlow } from '../../flows/flow-store.js';
import { startRegistration, submitRegistration } from '../../flows/registration-steps.js';
import { submittedBody } from '../../http/body.js';
import { flowRequestOf } from '../../http/flow-request.js';
import { sendOutcome } from '../../http/send-outcome.js';
import type { FlowQuery } from './flow-query.js';

export async function registrationRoutes(app: FastifyInstance, ctx: IdentityContext) {
  app.get<{ Querystring: FlowQuery }>('/self-service/registration/browser', async (request, reply) => {
    const req = flowRequestOf(request, reply, ctx);
    return sendOutcome(reply, req, await startRegistration(ctx, req, { returnTo: request.query.return_to }), req.acceptsJson);
  });

  app.get<{ Querystring: FlowQuery }>('/self-service/registration/flows', async (request, reply) =>
    serializeFlow(await fetchBrowserFlow(ctx, flowRequestOf(request, reply, ctx), 'registration', request.query.id)),
  );

  app.post<{ Querystring: FlowQuery }>('/self-service/registration', async (request, reply) => {
    const req = flowRequestOf(request, reply, ctx);
    const outcome = await submitRegistration(ctx, req, { flowId: flowIdFrom(request.query.flow), body: submittedBody(request.body) });
    return sendOutcome(reply, req, outcome, req.json);
  });
}

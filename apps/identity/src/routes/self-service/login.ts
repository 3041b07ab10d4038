import type { FastifyInstance } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { fetchBrowserFlow, flowIdFrom } from '../../flows/flow-lookup.js';
import { serializeFlow } from '../../flows/flow-store.js';
import { startLogin, submitLogin } from '../../flows/login-steps.js';
import { submittedBody } from '../../http/body.js';
import { flowRequestOf } from '../../http/flow-request.js';
import { sendOutcome } from '../../http/send-outcome.js';
import type { FlowQuery } from './flow-query.js';

export async function loginRoutes(app: FastifyInstance, ctx: IdentityContext) {
  app.get<{ Querystring: FlowQuery }>('/self-service/login/browser', async (request, reply) => {
    const req = flowRequestOf(request, reply, ctx);
    const { aal, refresh, return_to: returnTo } = request.query;
    return sendOutcome(reply, req, await startLogin(ctx, req, { aal, refresh, returnTo }), req.acceptsJson);
  });

  app.get<{ Querystring: FlowQuery }>('/self-service/login/flows', async (request, reply) =>
    serializeFlow(await fetchBrowserFlow(ctx, flowRequestOf(request, reply, ctx), 'login', request.query.id)),
  );

  app.post<{ Querystring: FlowQuery }>('/self-service/login', async (request, reply) => {
    const req = flowRequestOf(request, reply, ctx);
    const outcome = await submitLogin(ctx, req, { flowId: flowIdFrom(request.query.flow), body: submittedBody(request.body) });
    return sendOutcome(reply, req, outcome, req.json);
  });
}

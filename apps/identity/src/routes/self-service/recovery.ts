import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { fetchBrowserFlow, flowIdFrom } from '../../flows/flow-lookup.js';
import { serializeFlow } from '../../flows/flow-store.js';
import { followRecoveryLink, startRecovery, submitRecovery } from '../../flows/recovery-steps.js';
import { submittedBody } from '../../http/body.js';
import { flowRequestOf } from '../../http/flow-request.js';
import { sendOutcome } from '../../http/send-outcome.js';
import type { FlowQuery } from './flow-query.js';

export async function recoveryRoutes(app: FastifyInstance, ctx: IdentityContext) {
  app.get<{ Querystring: FlowQuery }>('/self-service/recovery/browser', async (request, reply) => {
    const req = flowRequestOf(request, reply, ctx);
    return sendOutcome(reply, req, await startRecovery(ctx, req, { returnTo: request.query.return_to }), req.acceptsJson);
  });

  app.get<{ Querystring: FlowQuery }>('/self-service/recovery/flows', async (request, reply) =>
    serializeFlow(await fetchBrowserFlow(ctx, flowRequestOf(request, reply, ctx), 'recovery', request.query.id)),
  );

  const submit = async (request: FastifyRequest<{ Querystring: FlowQuery }>, reply: FastifyReply) => {
    const req = flowRequestOf(request, reply, ctx);
    const flowId = flowIdFrom(request.query.flow);
    // The e-mailed link: GET ?flow=&token=.
    const { token } = request.query;
    const outcome =
      request.method === 'GET' && token
        ? await followRecoveryLink(ctx, req, { flowId, token })
        : await submitRecovery(ctx, req, { flowId, body: submittedBody(request.body) });
    return sendOutcome(reply, req, outcome, req.json);
  };
  app.post<{ Querystring: FlowQuery }>('/self-service/recovery', submit);
  app.get<{ Querystring: FlowQuery }>('/self-service/recovery', submit);
}

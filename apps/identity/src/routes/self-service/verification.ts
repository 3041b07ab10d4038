import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { fetchBrowserFlow, flowIdFrom } from '../../flows/flow-lookup.js';
import { serializeFlow } from '../../flows/flow-store.js';
import { startVerification, submitVerification } from '../../flows/verification-steps.js';
import { submittedBody } from '../../http/body.js';
import { flowRequestOf } from '../../http/flow-request.js';
import { sendOutcome } from '../../http/send-outcome.js';
import type { FlowQuery } from './flow-query.js';

export async function verificationRoutes(app: FastifyInstance, ctx: IdentityContext) {
  app.get<{ Querystring: FlowQuery }>('/self-service/verification/browser', async (request, reply) => {
    const req = flowRequestOf(request, reply, ctx);
    return sendOutcome(reply, req, await startVerification(ctx, req, { returnTo: request.query.return_to }), req.acceptsJson);
  });

  app.get<{ Querystring: FlowQuery }>('/self-service/verification/flows', async (request, reply) =>
    serializeFlow(await fetchBrowserFlow(ctx, flowRequestOf(request, reply, ctx), 'verification', request.query.id)),
  );

  const submit = async (request: FastifyRequest<{ Querystring: FlowQuery }>, reply: FastifyReply) => {
    const req = flowRequestOf(request, reply, ctx);
    const linkCode = request.method === 'GET' ? request.query.code : undefined;
    const outcome = await submitVerification(ctx, req, { flowId: flowIdFrom(request.query.flow), body: submittedBody(request.body), linkCode });
    return sendOutcome(reply, req, outcome, req.acceptsJson);
  };
  app.post<{ Querystring: FlowQuery }>('/self-service/verification', submit);
  app.get<{ Querystring: FlowQuery }>('/self-service/verification', submit);
}

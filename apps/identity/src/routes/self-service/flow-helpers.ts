import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { fetchBrowserFlow } from '../../flows/flow-lookup.js';
import { type Flow, type FlowKind, serializeFlow } from '../../flows/flow-store.js';
import { withFlowParam } from '../../flows/flow-urls.js';
import { flowRequestOf } from '../../http/flow-request.js';
import { acceptsJson } from '../../http/negotiation.js';
import type { FlowQuery } from './flow-query.js';

export { flowIdFrom, isExpired, requireFlow } from '../../flows/flow-lookup.js';
export { returnToFrom, withFlowParam } from '../../flows/flow-urls.js';
export type { FlowQuery } from './flow-query.js';

export const requestUrlOf = (ctx: IdentityContext, request: FastifyRequest) => `${ctx.config.identityUrl}${request.url}`;

/** A new flow: 200 JSON for SPAs, 303 to the flow's screen for browsers. */
export function sendNewFlow(
  request: FastifyRequest,
  reply: FastifyReply,
  flow: Flow,
  uiUrl: string,
  extra: Record<string, unknown> = {},
) {
  if (acceptsJson(request)) return reply.send(serializeFlow(flow, extra));
  return reply.redirect(withFlowParam(uiUrl, flow.id), 303);
}

/** GET /self-service/<kind>/flows?id= (see fetchBrowserFlow). */
export const getBrowserFlow = (request: FastifyRequest<{ Querystring: FlowQuery }>, reply: FastifyReply, ctx: IdentityContext, kind: FlowKind) =>
  fetchBrowserFlow(ctx, flowRequestOf(request, reply, ctx), kind, request.query.id);

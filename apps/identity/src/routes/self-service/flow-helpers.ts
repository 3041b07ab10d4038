import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { errors } from '../../flows/errors.js';
import { findFlow, type Flow, type FlowKind, serializeFlow } from '../../flows/flow-store.js';
import { readCsrfCookie } from '../../http/cookies.js';
import { acceptsJson } from '../../http/negotiation.js';
import { tokensMatch } from '../../flows/csrf.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type FlowQuery = { flow?: string; id?: string; return_to?: string; refresh?: string; aal?: string; token?: string; code?: string };

/** The `?flow=` (or `?id=`) parameter, which must be a UUID. */
export function flowIdFrom(value: string | undefined): string {
  if (!value || !uuidPattern.test(value)) throw errors.flowParamMissing();
  return value;
}

export async function requireFlow(ctx: IdentityContext, id: string, kind: FlowKind): Promise<Flow> {
  const flow = await findFlow(ctx.db, id, kind);
  if (!flow) throw errors.notFound(`The ${kind} request could not be found. Please restart the flow.`);
  return flow;
}

export const isExpired = (flow: Flow, now: Date) => flow.expiresAt.getTime() <= now.getTime();

/** Control characters: Go's url.Parse (so Kratos) refuses them, and CR/LF would break the Location header. */
const controlCharacter = /\p{Cc}/u;

/**
 * `return_to` must point at an allow-listed origin (the console's or identity's own). It ends up in
 * a Location header, which carries ASCII only: anything else is sent percent-encoded, as a browser
 * would send it.
 */
export function returnToFrom(ctx: IdentityContext, value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (typeof value !== 'string' || controlCharacter.test(value)) throw errors.returnToForbidden(String(value));
  let origin: string;
  try {
    origin = new URL(value).origin;
  } catch {
    throw errors.returnToForbidden(value);
  }
  if (!ctx.config.allowedReturnOrigins.includes(origin)) throw errors.returnToForbidden(value);
  return value.replace(/[^\x20-\x7e]/gu, (char) => encodeURIComponent(char));
}

export const requestUrlOf = (ctx: IdentityContext, request: FastifyRequest) => `${ctx.config.identityUrl}${request.url}`;

export const withFlowParam = (url: string, flowId: string) => `${url}${url.includes('?') ? '&' : '?'}flow=${flowId}`;

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

/**
 * GET /self-service/<kind>/flows?id=: the stored flow, if the caller holds the CSRF cookie the
 * flow was issued with (so a flow id alone, leaked in a URL, shows nothing).
 */
export async function getBrowserFlow(request: FastifyRequest<{ Querystring: FlowQuery }>, ctx: IdentityContext, kind: FlowKind, initUrl: string) {
  const flow = await requireFlow(ctx, flowIdFrom(request.query.id), kind);
  const cookie = readCsrfCookie(request, ctx);
  if (!cookie || !tokensMatch(flow.csrfToken, cookie)) {
    throw errors.csrf(
      cookie
        ? 'The HTTP Cookie Header was set and a CSRF token was sent but they do not match. We recommend deleting all cookies for this domain and retrying the flow.'
        : 'The HTTP Cookie Header was set but did not include the anti-CSRF cookie.',
    );
  }
  if (isExpired(flow, ctx.clock.now())) throw errors.flowExpiredOnGet(kind, initUrl);
  return flow;
}

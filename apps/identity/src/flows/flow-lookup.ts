import type { IdentityContext } from '../context.js';
import { tokensMatch } from './csrf.js';
import { errors } from './errors.js';
import type { FlowRequest } from './flow-request.js';
import { findFlow, type Flow, type FlowKind } from './flow-store.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

/** How long ago the flow expired, in minutes (the expiry messages' figure). */
export const minutesSinceExpiry = (flow: Flow, now: Date) => (now.getTime() - flow.expiresAt.getTime()) / 60_000;

/** Where a flow of this kind is started afresh. */
export const flowInitUrl = (ctx: IdentityContext, kind: FlowKind) => `${ctx.config.identityUrl}/self-service/${kind}/browser`;

/**
 * GET /self-service/<kind>/flows?id=: the stored flow, if the caller holds the CSRF cookie the
 * flow was issued with (so a flow id alone, leaked in a URL, shows nothing).
 */
export async function fetchBrowserFlow(ctx: IdentityContext, req: FlowRequest, kind: FlowKind, id: string | undefined): Promise<Flow> {
  const flow = await requireFlow(ctx, flowIdFrom(id), kind);
  const cookie = req.csrfCookie;
  if (!cookie || !tokensMatch(flow.csrfToken, cookie)) {
    throw errors.csrf(
      cookie
        ? 'The HTTP Cookie Header was set and a CSRF token was sent but they do not match. We recommend deleting all cookies for this domain and retrying the flow.'
        : 'The HTTP Cookie Header was set but did not include the anti-CSRF cookie.',
    );
  }
  if (isExpired(flow, ctx.clock.now())) throw errors.flowExpiredOnGet(kind, flowInitUrl(ctx, kind));
  return flow;
}

import type { IdentityContext } from '../context.js';
import { hasTotp } from '../domain/identities.js';
import type { Session } from '../domain/sessions.js';
import { errors } from './errors.js';
import { flowIdFrom, flowInitUrl, isExpired, minutesSinceExpiry, requireFlow } from './flow-lookup.js';
import type { FlowRequest } from './flow-request.js';
import type { Flow } from './flow-store.js';
import { returnToFrom, secondFactorLoginUrl, withFlowParam } from './flow-urls.js';
import { messages } from './messages.js';
import { failure, type Outcome, redirect } from './outcome.js';
import { createSettingsFlow } from './settings.js';
import { rejectSettings, settingsExtra } from './settings-change.js';
import { changePassword, changeProfile, changeTotp } from './settings-methods.js';

/** Settings need the highest assurance level the identity has (Kratos' highest_available). */
const lacksSecondFactor = async (ctx: IdentityContext, session: Session) => session.aal === 'aal1' && (await hasTotp(ctx.db, session.identityId));

/** GET /self-service/settings/browser: a new flow for the signed-in caller, or the login it needs first. */
export async function startSettings(ctx: IdentityContext, req: FlowRequest, input: { returnTo?: string | undefined }): Promise<Outcome> {
  const returnTo = returnToFrom(ctx, input.returnTo);
  const session = await req.currentSession();
  if (!session) {
    if (req.acceptsJson) return failure(errors.sessionInactive());
    return redirect(`${ctx.config.identityUrl}/self-service/login/browser${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`);
  }
  if (await lacksSecondFactor(ctx, session)) {
    // As Kratos does, the login comes back to this request only when it names a return_to.
    const secondFactor = secondFactorLoginUrl(ctx, returnTo && req.url);
    if (req.json) return failure(errors.sessionAal2Required(secondFactor));
    return redirect(secondFactor);
  }
  const flow = await createSettingsFlow(ctx, { identityId: session.identityId, csrfToken: req.cookies.ensureCsrf(), requestUrl: req.url, returnTo });
  return { kind: 'render', flow, status: 200, screen: ctx.config.ui.settings, extra: settingsExtra(ctx, flow) };
}

/** The flow, if it belongs to the caller's session and that session is strong enough; else throws the Kratos error. */
async function ownedFlow(ctx: IdentityContext, req: FlowRequest, id: string | undefined, aal2ReturnTo: (flow: Flow) => string | undefined) {
  const session = await req.currentSession();
  if (!session) throw errors.noSessionForSettings();
  const flow = await requireFlow(ctx, flowIdFrom(id), 'settings');
  if (flow.identityId !== session.identityId) throw errors.identityMismatch();
  if (await lacksSecondFactor(ctx, session)) throw errors.sessionAal2Required(secondFactorLoginUrl(ctx, aal2ReturnTo(flow)));
  return { session, flow };
}

/** GET /self-service/settings/flows?id=: the caller's own flow, as JSON. */
export async function fetchSettingsFlow(ctx: IdentityContext, req: FlowRequest, input: { flowId: string | undefined }): Promise<Outcome> {
  // After the second factor the person comes back to the settings screen with this flow, not to this JSON.
  const { flow } = await ownedFlow(ctx, req, input.flowId, (owned) => withFlowParam(ctx.config.ui.settings, owned.id));
  if (isExpired(flow, ctx.clock.now())) return failure(errors.flowExpiredOnGet('settings', flowInitUrl(ctx, 'settings')));
  return { kind: 'render', flow, status: 200, screen: ctx.config.ui.settings, extra: settingsExtra(ctx, flow) };
}

/** POST /self-service/settings?flow=: a new e-mail address, password or authenticator. */
export async function submitSettings(
  ctx: IdentityContext,
  req: FlowRequest,
  input: { flowId: string | undefined; body: Record<string, unknown> },
): Promise<Outcome> {
  const { session, flow } = await ownedFlow(ctx, req, input.flowId, (owned) => owned.returnTo ?? undefined);
  const now = ctx.clock.now();
  if (isExpired(flow, now)) {
    const replacement = await createSettingsFlow(ctx, {
      identityId: session.identityId,
      csrfToken: req.cookies.ensureCsrf(),
      requestUrl: req.url,
      returnTo: flow.returnTo ?? undefined,
      uiMessages: [messages.settingsFlowExpired(minutesSinceExpiry(flow, now), flow.expiresAt)],
    });
    if (req.json) return failure(errors.flowExpired(flow.expiresAt, now, replacement.id));
    return redirect(withFlowParam(ctx.config.ui.settings, replacement.id));
  }
  const { body } = input;
  req.checkCsrf(body.csrf_token);
  const change = { ctx, req, flow, session, now };
  if (body.method === 'profile') return changeProfile(change, body);
  if (body.method === 'password') return changePassword(change, body);
  if (body.method === 'totp') return changeTotp(change, body);
  return rejectSettings(change, [{ message: messages.noSettingsStrategy() }]);
}

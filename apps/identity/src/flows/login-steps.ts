import type { IdentityContext } from '../context.js';
import { findCredential, hasTotp } from '../domain/identities.js';
import { serializeSession, type Session } from '../domain/sessions.js';
import { errors } from './errors.js';
import { isExpired, minutesSinceExpiry, requireFlow } from './flow-lookup.js';
import type { FlowRequest } from './flow-request.js';
import type { Flow } from './flow-store.js';
import { returnToFrom, secondFactorLoginUrl, withFlowParam } from './flow-urls.js';
import { createLoginFlow, loginScreen, rejectLogin } from './login-flow.js';
import { submitLoginCode, submitPassword, submitTotp } from './login-methods.js';
import { messages } from './messages.js';
import { failure, type Outcome, redirect } from './outcome.js';

export type LoginStart = { aal?: string | undefined; refresh?: string | undefined; returnTo?: string | undefined };

/** GET /self-service/login/browser: a new flow, or the way on for a caller who needs none. */
export async function startLogin(ctx: IdentityContext, req: FlowRequest, input: LoginStart): Promise<Outcome> {
  const { aal = 'aal1', refresh } = input;
  if (aal !== 'aal1' && aal !== 'aal2') {
    return failure(errors.badRequest(`Unable to parse AuthenticationMethod Assurance Level (AAL): expected one of [aal1, aal2] but got ${aal}`));
  }
  const returnTo = returnToFrom(ctx, input.returnTo);
  const session = await req.currentSession();
  if (!session) {
    if (aal === 'aal2') return failure(errors.sessionAal1Required());
    return shown(ctx, await createLoginFlow(ctx, req, { returnTo, aal }));
  }
  const wantsRefresh = refresh === 'true';
  const upgradable = aal === 'aal2' && session.aal === 'aal1' && (await hasTotp(ctx.db, session.identityId));
  if (!wantsRefresh && !upgradable) {
    if (req.json) return failure(errors.sessionAlreadyAvailable('login'));
    return redirect(returnTo ?? ctx.config.ui.afterLogin);
  }
  const identifier = wantsRefresh ? (await findCredential(ctx.db, session.identityId, 'password'))?.identifier : undefined;
  return shown(ctx, await createLoginFlow(ctx, req, { returnTo, aal: upgradable ? 'aal2' : 'aal1', refresh: wantsRefresh, identifier }));
}

const shown = (ctx: IdentityContext, flow: Flow): Outcome => ({ kind: 'render', flow, status: 200, screen: loginScreen(ctx, flow) });

/** POST /self-service/login?flow=: the password (first factor) or a TOTP code (second). */
export async function submitLogin(ctx: IdentityContext, req: FlowRequest, input: { flowId: string; body: Record<string, unknown> }): Promise<Outcome> {
  const flow = await requireFlow(ctx, input.flowId, 'login');
  const session = await req.currentSession();
  const now = ctx.clock.now();
  if (session && !flow.refresh && (flow.requestedAal !== 'aal2' || session.aal === 'aal2')) {
    if (!req.json) return redirect(ctx.config.ui.afterLogin);
    return rejectLogin(ctx, flow, session, [
      { message: messages.generic('A valid session was detected and thus login is not possible. Did you forget to set `?refresh=true`?') },
    ]);
  }
  if (!session && flow.requestedAal === 'aal2') return failure(errors.sessionAal1Required());
  if (isExpired(flow, now)) {
    const replacement = await createLoginFlow(ctx, req, {
      returnTo: flow.returnTo ?? undefined,
      aal: flow.requestedAal ?? 'aal1',
      uiMessages: [messages.loginFlowExpired(minutesSinceExpiry(flow, now), flow.expiresAt)],
    });
    if (req.json) return failure(errors.flowExpired(flow.expiresAt, now, replacement.id));
    return redirect(withFlowParam(loginScreen(ctx, replacement), replacement.id));
  }
  if (flow.state === 'passed_challenge') return rejectLogin(ctx, flow, session, [{ message: messages.alreadyCompleted(4010007) }]);

  const { body } = input;
  const mailedCode = flow.state === 'sent_email';
  const signedIn =
    body.method === 'password' && flow.requestedAal !== 'aal2' && !mailedCode
      ? await submitPassword(ctx, req, flow, body, session)
      : body.method === 'code' && mailedCode
        ? await submitLoginCode(ctx, req, flow, body, session)
        : body.method === 'totp' && flow.requestedAal === 'aal2' && session
          ? await submitTotp(ctx, req, flow, body, session)
          : await rejectLogin(ctx, flow, session, [{ message: messages.noLoginStrategy() }]);
  return 'identityId' in signedIn ? loggedIn(ctx, req, flow, signedIn) : signedIn;
}

/** A new session: on to the second factor if the identity has one the session has not proved, else done. */
async function loggedIn(ctx: IdentityContext, req: FlowRequest, flow: Flow, session: Session): Promise<Outcome> {
  if (session.aal !== 'aal2' && (await hasTotp(ctx.db, session.identityId))) {
    ctx.metrics.login('second_factor_required');
    const target = secondFactorLoginUrl(ctx, flow.returnTo);
    if (req.json) return failure(errors.locationChangeRequired(target));
    return redirect(target);
  }
  ctx.metrics.login('success');
  const target = flow.returnTo ?? ctx.config.ui.afterLogin;
  return {
    kind: 'success',
    redirectTo: target,
    body: async () => ({
      session: await serializeSession(ctx.db, session, ctx.config.identityUrl),
      continue_with: [{ action: 'redirect_browser_to', redirect_browser_to: target }],
    }),
  };
}

import type { IdentityContext } from '../context.js';
import { revokeRecoveryCodes } from '../domain/codes.js';
import { markAddressVerified } from '../domain/identities.js';
import { privilegedWindowMs, revokeAllSessions } from '../domain/sessions.js';
import { errors } from './errors.js';
import type { FlowRequest } from './flow-request.js';
import { createFlow, type Flow, flowUi, updateFlow } from './flow-store.js';
import { withFlowParam } from './flow-urls.js';
import { issueSession } from './issue-session.js';
import { messages, type UiText } from './messages.js';
import { failure, type Outcome, redirect } from './outcome.js';
import { recoveryUi } from './recovery-ui.js';
import { createSettingsFlow } from './settings.js';
import { clearMessages, withMessages } from './ui-nodes.js';

export const recoveryAction = (ctx: IdentityContext, id: string) => `${ctx.config.identityUrl}/self-service/recovery?flow=${id}`;

export const createRecoveryFlow = (ctx: IdentityContext, req: FlowRequest, returnTo: string | undefined, uiMessages: UiText[] = []) =>
  createFlow(ctx.db, {
    kind: 'recovery',
    state: 'choose_method',
    active: 'code',
    csrfToken: req.cookies.ensureCsrf(),
    requestUrl: req.url,
    returnTo,
    ui: (id) => withMessages(recoveryUi.chooseMethod(recoveryAction(ctx, id)), uiMessages),
    now: ctx.clock.now(),
  });

/** The flow cannot go on: a fresh one carries the reason, and JSON callers get 410 with its id. */
export async function replaceRecoveryFlow(ctx: IdentityContext, req: FlowRequest, flow: Flow, reason: UiText): Promise<Outcome> {
  const replacement = await createRecoveryFlow(ctx, req, flow.returnTo ?? undefined, [reason]);
  if (!req.json) return redirect(withFlowParam(ctx.config.ui.recovery, replacement.id));
  return failure(errors.flowReplaced(replacement.id));
}

/** A recovered account: privileged session, fresh CSRF, and a settings flow to choose a new password; returns that flow's screen. */
export async function recoverAccount(
  ctx: IdentityContext,
  req: FlowRequest,
  flow: Flow,
  recovered: { identityId: string; address: string; method: 'code_recovery' | 'link_recovery' },
): Promise<string> {
  const now = ctx.clock.now();
  const { identityId } = recovered;
  await markAddressVerified(ctx.db, recovered.address, now);
  // Whoever held a session, a code or a link of the account may be why it is being recovered.
  await revokeAllSessions(ctx.db, identityId);
  await revokeRecoveryCodes(ctx.db, identityId);
  await issueSession(ctx, req, {
    identityId,
    aal: 'aal1',
    methods: [{ method: recovered.method, aal: 'aal1', completed_at: now.toISOString() }],
    previous: await req.currentSession(),
  });
  const csrfToken = req.cookies.rotateCsrf();
  await updateFlow(ctx.db, flow, { state: 'passed_challenge', ui: clearMessages(flowUi(flow)) }, now);
  const settings = await createSettingsFlow(ctx, {
    identityId,
    csrfToken,
    requestUrl: req.url,
    returnTo: flow.returnTo ?? undefined,
    uiMessages: [messages.recoverySucceeded(new Date(now.getTime() + privilegedWindowMs), now)],
  });
  return withFlowParam(ctx.config.ui.settings, settings.id);
}

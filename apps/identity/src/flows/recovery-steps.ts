import type { IdentityContext } from '../context.js';
import { consumeCode, issueCode } from '../domain/codes.js';
import { findRecoveryAddress } from '../domain/identity-changes.js';
import { normalizeEmail } from '../domain/identities.js';
import { stringField } from './string-field.js';
import { consumeRateLimit, rateRules } from '../domain/rate-limit.js';
import { recoveryCodeMail, recoveryLinkMail } from '../mail/templates.js';
import { errors } from './errors.js';
import { isExpired, minutesSinceExpiry, requireFlow } from './flow-lookup.js';
import type { FlowRequest } from './flow-request.js';
import { countSubmission, type Flow, flowUi, updateFlow } from './flow-store.js';
import { returnToFrom, withFlowParam } from './flow-urls.js';
import { messages, type UiText } from './messages.js';
import { failure, type Outcome, redirect } from './outcome.js';
import { createRecoveryFlow, recoverAccount, recoveryAction, replaceRecoveryFlow } from './recovery-flow.js';
import { recoveryUi } from './recovery-ui.js';
import { attachMessage, clearMessages, withMessages } from './ui-nodes.js';

const maxCodeSubmissions = 5;

/** The flow as it now is (`status` for API clients); browsers go back to the recovery screen. */
const shown = (ctx: IdentityContext, flow: Flow, status = 200): Outcome => ({ kind: 'render', flow, status, screen: ctx.config.ui.recovery, csrf: 'caller' });

/** GET /self-service/recovery/browser: a new flow, unless the caller is signed in. */
export async function startRecovery(ctx: IdentityContext, req: FlowRequest, input: { returnTo?: string | undefined }): Promise<Outcome> {
  const returnTo = returnToFrom(ctx, input.returnTo);
  if (await req.currentSession()) {
    if (req.json) return failure(errors.sessionAlreadyAvailable('recovery'));
    return redirect(returnTo ?? ctx.config.ui.afterLogin, 302);
  }
  return { kind: 'render', flow: await createRecoveryFlow(ctx, req, returnTo), status: 200, screen: ctx.config.ui.recovery };
}

/** GET /self-service/recovery?flow=&token=: the e-mailed link recovers the account, or starts over. */
export async function followRecoveryLink(ctx: IdentityContext, req: FlowRequest, input: { flowId: string; token: string }): Promise<Outcome> {
  const flow = await requireFlow(ctx, input.flowId, 'recovery');
  const now = ctx.clock.now();
  const check = await consumeCode(ctx.db, ctx.secret, { flowId: flow.id, kind: 'recovery_link', code: input.token, now });
  if (check.outcome !== 'valid' || !check.identityId || isExpired(flow, now)) {
    const replacement = await createRecoveryFlow(ctx, req, flow.returnTo ?? undefined, [messages.recoveryTokenInvalid()]);
    return redirect(withFlowParam(ctx.config.ui.recovery, replacement.id));
  }
  return redirect(await recoverAccount(ctx, req, flow, { identityId: check.identityId, address: check.address, method: 'link_recovery' }));
}

/** POST /self-service/recovery?flow=: an address to mail a code (or link) to, or the code. */
export async function submitRecovery(ctx: IdentityContext, req: FlowRequest, input: { flowId: string; body: Record<string, unknown> }): Promise<Outcome> {
  const flow = await requireFlow(ctx, input.flowId, 'recovery');
  const now = ctx.clock.now();
  if (await req.currentSession()) return failure(errors.sessionAlreadyAvailable('recovery'));
  if (isExpired(flow, now)) {
    const replacement = await createRecoveryFlow(ctx, req, flow.returnTo ?? undefined, [
      messages.recoveryFlowExpired(minutesSinceExpiry(flow, now), flow.expiresAt),
    ]);
    return redirect(
      req.json ? `${ctx.config.identityUrl}/self-service/recovery/flows?id=${replacement.id}` : withFlowParam(ctx.config.ui.recovery, replacement.id),
    );
  }
  if (flow.state === 'passed_challenge') return replaceRecoveryFlow(ctx, req, flow, messages.alreadyCompleted(4060001));

  const { body } = input;
  req.checkCsrf(body.csrf_token);
  const method = body.method === 'link' ? 'link' : 'code';
  const code = stringField(body.code);
  if (method === 'code' && code) return checkCode(ctx, req, flow, code);

  const rawEmail = stringField(body.email);
  if (!rawEmail) return rejectAddress(ctx, flow, messages.missingProperty('email'));
  const email = normalizeEmail(rawEmail);
  await consumeRateLimit(ctx, [rateRules.recoveryIp(req.ip), rateRules.recoveryAddress(email)]);
  // Spec §2/§7: an unknown address is the UserNotFound outcome (4000037). Registration already
  // tells whether an address exists, so this reveals nothing new; the limits above still count it.
  const address = await findRecoveryAddress(ctx.db, email);
  if (!address) return rejectAddress(ctx, flow, messages.accountNotFound());
  const ui = method === 'link' ? recoveryUi.linkSent(recoveryAction(ctx, flow.id), email) : recoveryUi.codeSent(recoveryAction(ctx, flow.id), email);
  const updated = await updateFlow(ctx.db, flow, { state: 'sent_email', active: method, ui, submissions: 0 }, now);
  const issued = { flowId: flow.id, address: email, identityId: address.identityId, now };
  if (method === 'link') {
    const token = await issueCode(ctx.db, ctx.secret, { ...issued, kind: 'recovery_link' });
    await ctx.mailer.send(recoveryLinkMail(email, `${recoveryAction(ctx, flow.id)}&token=${token}`));
  } else {
    await ctx.mailer.send(recoveryCodeMail(email, await issueCode(ctx.db, ctx.secret, { ...issued, kind: 'recovery_code' })));
  }
  return shown(ctx, updated);
}

const rejectAddress = async (ctx: IdentityContext, flow: Flow, message: UiText) => {
  const ui = clearMessages(flowUi(flow));
  return shown(ctx, await updateFlow(ctx.db, flow, { ui: { ...ui, nodes: attachMessage(ui.nodes, 'email', message) } }, ctx.clock.now()), 400);
};

async function checkCode(ctx: IdentityContext, req: FlowRequest, flow: Flow, code: string): Promise<Outcome> {
  const now = ctx.clock.now();
  await consumeRateLimit(ctx, [rateRules.recoveryIp(req.ip)]);
  if ((await countSubmission(ctx.db, flow)) > maxCodeSubmissions) {
    return replaceRecoveryFlow(ctx, req, flow, messages.generic('The request was submitted too often. Please request another code.'));
  }
  const check = await consumeCode(ctx.db, ctx.secret, { flowId: flow.id, kind: 'recovery_code', code: code.trim(), now });
  if (check.outcome !== 'valid' || !check.identityId) {
    return shown(ctx, await updateFlow(ctx.db, flow, { ui: withMessages(clearMessages(flowUi(flow)), [messages.recoveryCodeInvalid()]) }, now));
  }
  const settingsUrl = await recoverAccount(ctx, req, flow, { identityId: check.identityId, address: check.address, method: 'code_recovery' });
  if (req.json) return failure(errors.locationChangeRequired(settingsUrl));
  return redirect(settingsUrl);
}

import type { IdentityContext } from '../context.js';
import { consumeCode } from '../domain/codes.js';
import { markAddressVerified, normalizeEmail } from '../domain/identities.js';
import { stringField } from './string-field.js';
import { consumeRateLimit, rateRules } from '../domain/rate-limit.js';
import { errors } from './errors.js';
import { isExpired, minutesSinceExpiry, requireFlow } from './flow-lookup.js';
import type { FlowRequest } from './flow-request.js';
import { countSubmission, createFlow, type Flow, flowUi, updateFlow } from './flow-store.js';
import { returnToFrom, withFlowParam } from './flow-urls.js';
import { messages, type UiText } from './messages.js';
import { failure, type Outcome, redirect } from './outcome.js';
import { attachMessage, clearMessages, setValue, withMessages } from './ui-nodes.js';
import { sendVerificationCode, verificationAction } from './verification.js';
import { verificationUi } from './verification-ui.js';

/** At most this many code attempts per flow; the next one replaces the flow. */
const maxCodeSubmissions = 5;

// Verification answers JSON only when Accept asks for it (`req.acceptsJson`): Kratos' browser test for this flow.

const createVerificationFlow = (ctx: IdentityContext, req: FlowRequest, returnTo: string | undefined, uiMessages: UiText[] = []) =>
  createFlow(ctx.db, {
    kind: 'verification',
    state: 'choose_method',
    active: 'code',
    csrfToken: req.cookies.ensureCsrf(),
    requestUrl: req.url,
    returnTo,
    ui: (id) => withMessages(verificationUi.chooseMethod(verificationAction(ctx, id)), uiMessages),
    now: ctx.clock.now(),
  });

/** The flow as it now is (`status` for API clients); browsers go back to the verification screen. */
const shown = (ctx: IdentityContext, flow: Flow, status = 200): Outcome => ({
  kind: 'render',
  flow,
  status,
  screen: ctx.config.ui.verification,
  csrf: 'caller',
});

/** The flow cannot go on: a fresh one carries the reason, and JSON callers get 410 with its id. */
async function replaceFlow(ctx: IdentityContext, req: FlowRequest, flow: Flow, reason: UiText): Promise<Outcome> {
  const replacement = await createVerificationFlow(ctx, req, flow.returnTo ?? undefined, [reason]);
  if (!req.acceptsJson) return redirect(withFlowParam(ctx.config.ui.verification, replacement.id));
  return failure(errors.flowReplaced(replacement.id));
}

/** GET /self-service/verification/browser. */
export async function startVerification(ctx: IdentityContext, req: FlowRequest, input: { returnTo?: string | undefined }): Promise<Outcome> {
  const returnTo = returnToFrom(ctx, input.returnTo);
  return { kind: 'render', flow: await createVerificationFlow(ctx, req, returnTo), status: 200, screen: ctx.config.ui.verification };
}

/**
 * POST /self-service/verification?flow=: an address to mail a code to, or the code. `linkCode` is
 * the code an e-mailed link carries (GET ?flow=&code=): it fills the form, it does not verify.
 */
export async function submitVerification(
  ctx: IdentityContext,
  req: FlowRequest,
  input: { flowId: string; body: Record<string, unknown>; linkCode?: string | undefined },
): Promise<Outcome> {
  const flow = await requireFlow(ctx, input.flowId, 'verification');
  const now = ctx.clock.now();
  if (input.linkCode) {
    const ui = { ...flowUi(flow), nodes: setValue(flowUi(flow).nodes, 'code', input.linkCode.slice(0, 6)) };
    await updateFlow(ctx.db, flow, { ui }, now);
    return redirect(withFlowParam(ctx.config.ui.verification, flow.id));
  }
  if (isExpired(flow, now)) {
    const replacement = await createVerificationFlow(ctx, req, flow.returnTo ?? undefined, [
      messages.verificationFlowExpired(minutesSinceExpiry(flow, now), flow.expiresAt),
    ]);
    return redirect(
      req.acceptsJson
        ? `${ctx.config.identityUrl}/self-service/verification/flows?id=${replacement.id}`
        : withFlowParam(ctx.config.ui.verification, replacement.id),
    );
  }
  if (flow.state === 'passed_challenge') return replaceFlow(ctx, req, flow, messages.alreadyCompleted(4070002));

  const code = stringField(input.body.code);
  if (code) return checkCode(ctx, req, flow, code);

  const rawEmail = stringField(input.body.email);
  if (!rawEmail) {
    const ui = clearMessages(flowUi(flow));
    return shown(ctx, await updateFlow(ctx.db, flow, { ui: { ...ui, nodes: attachMessage(ui.nodes, 'email', messages.missingProperty('email')) } }, now), 400);
  }
  req.checkCsrf(input.body.csrf_token);
  const email = normalizeEmail(rawEmail);
  await consumeRateLimit(ctx, [rateRules.verificationIp(req.ip), rateRules.verificationAddress(email)]);
  const updated = await updateFlow(
    ctx.db,
    flow,
    { state: 'sent_email', ui: verificationUi.sentEmail(verificationAction(ctx, flow.id), email), context: { email }, submissions: 0 },
    now,
  );
  await sendVerificationCode(ctx, updated, email);
  return shown(ctx, updated);
}

async function checkCode(ctx: IdentityContext, req: FlowRequest, flow: Flow, code: string): Promise<Outcome> {
  const now = ctx.clock.now();
  await consumeRateLimit(ctx, [rateRules.verificationIp(req.ip)]);
  if ((await countSubmission(ctx.db, flow)) > maxCodeSubmissions) {
    return replaceFlow(ctx, req, flow, messages.generic('The request was submitted too often. Please request another code.'));
  }
  const check = await consumeCode(ctx.db, ctx.secret, { flowId: flow.id, kind: 'verification_code', code: code.trim(), now });
  if (check.outcome === 'used') return replaceFlow(ctx, req, flow, messages.generic('The code was already used. Please request another code.'));
  if (check.outcome === 'invalid') {
    return shown(ctx, await updateFlow(ctx.db, flow, { ui: withMessages(clearMessages(flowUi(flow)), [messages.verificationCodeInvalid()]) }, now));
  }
  await markAddressVerified(ctx.db, check.address, now);
  const ui = verificationUi.passedChallenge(flow.returnTo ?? ctx.config.ui.afterLogin);
  return shown(ctx, await updateFlow(ctx.db, flow, { state: 'passed_challenge', ui }, now));
}

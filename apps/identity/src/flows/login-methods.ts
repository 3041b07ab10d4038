import type { IdentityContext } from '../context.js';
import { findCredential, findPasswordCredential, normalizeEmail } from '../domain/identities.js';
import { claimTotpStep } from '../domain/identity-changes.js';
import { verifyDecoy, verifyPassword } from '../domain/passwords.js';
import type { Session } from '../domain/sessions.js';
import { matchTotp } from '../domain/totp.js';
import { stringField } from './string-field.js';
import { issueLoginCode, useLoginCode } from '../domain/codes.js';
import { claimLoginAttempt, clearLoginFailures } from '../domain/login-delay.js';
import { consumeRateLimit, overRateLimit, rateRules, refundRateLimit } from '../domain/rate-limit.js';
import { loginCodeMail } from '../mail/templates.js';
import type { FlowRequest } from './flow-request.js';
import { countSubmission, type Flow, updateFlow } from './flow-store.js';
import { issueSession } from './issue-session.js';
import { loginAction, loginScreen, type Problem, rejectLogin } from './login-flow.js';
import { loginUi } from './login-ui.js';
import { messages } from './messages.js';
import type { Outcome } from './outcome.js';

/** The first factor: the new session, or the flow again with what was wrong. */
export async function submitPassword(
  ctx: IdentityContext,
  req: FlowRequest,
  flow: Flow,
  body: Record<string, unknown>,
  previous: Session | undefined,
): Promise<Session | Outcome> {
  const now = ctx.clock.now();
  const identifier = stringField(body.identifier) ?? stringField(body.password_identifier);
  const password = stringField(body.password);
  const missing: Problem[] = [
    ...(identifier === undefined ? [{ node: 'identifier', message: messages.missingProperty('identifier') }] : []),
    ...(password === undefined ? [{ node: 'password', message: messages.missingProperty('password') }] : []),
  ];
  if (missing.length) return rejectLogin(ctx, flow, previous, missing, identifier);
  req.checkCsrf(body.csrf_token);
  const email = normalizeEmail(identifier ?? '');
  await consumeRateLimit(ctx, [rateRules.loginIp(req.ip)]);
  const credential = await findPasswordCredential(ctx.db, email);
  // A browser that signed in to this identity before is not held up by failures others caused.
  const knownDevice = credential !== undefined && req.isKnownDevice(credential.identityId);
  if (!knownDevice) {
    // The attempt counts as a failure until it is judged right (cleared and refunded below).
    await claimLoginAttempt(ctx, email, req.ip);
  }
  // Strangers' failures capped the identifier: instead of a 429, the owner goes on with a code mailed to it.
  const capped = !knownDevice && (await overRateLimit(ctx, rateRules.loginFailures(email))) !== undefined;
  const valid = credential ? await verifyPassword(credential.config.hashedPassword ?? '', password ?? '') : (await verifyDecoy(password ?? ''), false);
  if (capped) return askForMailedCode(ctx, flow, email, credential?.identityId, valid);
  if (!credential || !valid || (previous && flow.refresh && previous.identityId !== credential.identityId)) {
    ctx.metrics.login('invalid_credentials');
    return rejectLogin(ctx, flow, previous, [{ message: messages.invalidCredentials() }], identifier);
  }
  if (!knownDevice) {
    await clearLoginFailures(ctx, email, req.ip);
    await refundRateLimit(ctx, rateRules.loginFailures(email));
  }
  req.cookies.setDevice(credential.identityId);
  const passwordMethod = { method: 'password', aal: 'aal1', completed_at: now.toISOString() } as const;
  // As Kratos does, a refresh adds the password to what the session already proved and keeps its level.
  const refreshed = flow.refresh && previous ? previous : undefined;
  const session = await issueSession(ctx, req, {
    identityId: credential.identityId,
    aal: refreshed?.aal ?? 'aal1',
    methods: refreshed ? [...refreshed.authenticationMethods, passwordMethod] : [passwordMethod],
    previous,
  });
  await updateFlow(ctx.db, flow, { state: 'passed_challenge', active: 'password' }, now);
  return session;
}

/** At most this many code submissions per flow; then the person signs in again (and is mailed a code if none is live). */
const maxCodeSubmissions = 5;

/**
 * The flow asks for the code mailed to the identifier, whatever the password was: an answer that
 * differed would tell a stranger it was right. Whether it was is kept in the flow, judged with the
 * code; an unknown identifier gets the same answer and no mail.
 */
async function askForMailedCode(ctx: IdentityContext, flow: Flow, email: string, identityId: string | undefined, passwordRight: boolean): Promise<Outcome> {
  const now = ctx.clock.now();
  if (identityId) {
    const code = await issueLoginCode(ctx.db, ctx.secret, { flowId: flow.id, identityId, address: email, now });
    if (code) await ctx.mailer.send(loginCodeMail(email, code));
  }
  ctx.metrics.login('code_mailed');
  const updated = await updateFlow(
    ctx.db,
    flow,
    { state: 'sent_email', active: 'code', ui: loginUi.mailedCode(loginAction(ctx, flow.id), email), context: { email, passwordRight }, submissions: 0 },
    now,
  );
  return { kind: 'render', flow: updated, status: 400, screen: loginScreen(ctx, flow), csrf: 'caller' };
}

/**
 * method=code on a flow that asked for the mailed code: the code, judged with the password the
 * flow was sent, and answered alike when either was wrong (a wrong password leaves the code
 * unused). A right pair signs in and marks the browser as the identity's device.
 */
export async function submitLoginCode(
  ctx: IdentityContext,
  req: FlowRequest,
  flow: Flow,
  body: Record<string, unknown>,
  previous: Session | undefined,
): Promise<Session | Outcome> {
  const now = ctx.clock.now();
  const email = String(flow.context.email ?? '');
  const code = stringField(body.code);
  if (code === undefined) return rejectLogin(ctx, flow, previous, [{ node: 'code', message: messages.missingProperty('code') }], email);
  req.checkCsrf(body.csrf_token);
  await consumeRateLimit(ctx, [rateRules.loginIp(req.ip)]);
  if ((await countSubmission(ctx.db, flow)) > maxCodeSubmissions) {
    return rejectLogin(ctx, flow, previous, [{ message: messages.generic('The request was submitted too often. Please sign in again.') }], email);
  }
  const credential = await findPasswordCredential(ctx.db, email);
  // Counted before it is judged, as password failures are, so simultaneous guesses cannot all slip under the limit.
  if (credential) await consumeRateLimit(ctx, [rateRules.loginCodeFailures(credential.identityId)]);
  const right =
    credential &&
    flow.context.passwordRight === true &&
    (await useLoginCode(ctx.db, ctx.secret, { identityId: credential.identityId, code: code.trim(), now }));
  if (!credential || !right) {
    ctx.metrics.login('invalid_credentials');
    return rejectLogin(ctx, flow, previous, [{ message: messages.invalidCredentials() }], email);
  }
  await refundRateLimit(ctx, rateRules.loginCodeFailures(credential.identityId));
  await clearLoginFailures(ctx, email, req.ip);
  req.cookies.setDevice(credential.identityId);
  const session = await issueSession(ctx, req, {
    identityId: credential.identityId,
    aal: 'aal1',
    methods: [{ method: 'password', aal: 'aal1', completed_at: now.toISOString() }],
    previous,
  });
  await updateFlow(ctx.db, flow, { state: 'passed_challenge', active: 'code' }, now);
  return session;
}

/** The second factor: the session raised to aal2, or the flow again with what was wrong. */
export async function submitTotp(
  ctx: IdentityContext,
  req: FlowRequest,
  flow: Flow,
  body: Record<string, unknown>,
  previous: Session,
): Promise<Session | Outcome> {
  const now = ctx.clock.now();
  const code = stringField(body.totp_code);
  if (code === undefined) return rejectLogin(ctx, flow, previous, [{ node: 'totp_code', message: messages.missingProperty('totp_code') }]);
  req.checkCsrf(body.csrf_token);
  await consumeRateLimit(ctx, [rateRules.loginIp(req.ip), rateRules.secondFactorFailures(previous.identityId)]);
  const totp = await findCredential(ctx.db, previous.identityId, 'totp');
  if (!totp) return rejectLogin(ctx, flow, previous, [{ message: messages.noTotpDevice() }]);
  // A code works once: its time step, or an older one, is refused after it was accepted.
  const step = await matchTotp(totp.config.totpSecret ?? '', code.trim(), now, totp.lastUsedStep);
  if (step === undefined || !(await claimTotpStep(ctx.db, previous.identityId, step))) {
    ctx.metrics.login('invalid_totp_code');
    return rejectLogin(ctx, flow, previous, [{ message: messages.invalidTotpCode() }]);
  }
  await refundRateLimit(ctx, rateRules.secondFactorFailures(previous.identityId));
  const session = await issueSession(ctx, req, {
    identityId: previous.identityId,
    aal: 'aal2',
    methods: [...previous.authenticationMethods, { method: 'totp', aal: 'aal2', completed_at: now.toISOString() }],
    previous,
    authenticatedAt: previous.authenticatedAt,
  });
  await updateFlow(ctx.db, flow, { state: 'passed_challenge', active: 'totp' }, now);
  return session;
}

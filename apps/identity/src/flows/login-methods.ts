import type { IdentityContext } from '../context.js';
import { findCredential, findPasswordCredential, normalizeEmail } from '../domain/identities.js';
import { claimTotpStep } from '../domain/identity-changes.js';
import { verifyDecoy, verifyPassword } from '../domain/passwords.js';
import type { Session } from '../domain/sessions.js';
import { matchTotp } from '../domain/totp.js';
import { stringField } from './string-field.js';
import { claimLoginAttempt, clearLoginFailures } from '../domain/login-delay.js';
import { consumeRateLimit, rateRules, refundRateLimit } from '../domain/rate-limit.js';
import type { FlowRequest } from './flow-request.js';
import { type Flow, updateFlow } from './flow-store.js';
import { issueSession } from './issue-session.js';
import { type Problem, rejectLogin } from './login-flow.js';
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
    await consumeRateLimit(ctx, [rateRules.loginFailures(email)]);
  }
  const valid = credential ? await verifyPassword(credential.config.hashedPassword ?? '', password ?? '') : (await verifyDecoy(password ?? ''), false);
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

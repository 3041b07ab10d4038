import { revokeRecoveryCodes } from '../domain/codes.js';
import { changeEmail, linkTotp, setPasswordHash, unlinkTotp } from '../domain/identity-changes.js';
import { emailTaken, findCredential, normalizeEmail } from '../domain/identities.js';
import { checkPasswordPolicy, hashPassword, verifyPassword } from '../domain/passwords.js';
import { revokeOtherSessions } from '../domain/sessions.js';
import { matchTotp } from '../domain/totp.js';
import { stringField } from './string-field.js';
import { emailChangedMail, passwordChangedMail, totpRemovedMail } from '../mail/templates.js';
import { withFlowParam } from './flow-urls.js';
import { issueSession } from './issue-session.js';
import { messages } from './messages.js';
import type { Outcome } from './outcome.js';
import { identityEmail } from './settings.js';
import { privilegeMissing, rejectSettings, type SettingsChange, settingsSaved } from './settings-change.js';
import { startVerificationFor } from './verification.js';

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** method=profile: a new e-mail address, which then needs verifying. */
export async function changeProfile(change: SettingsChange, body: Record<string, unknown>): Promise<Outcome> {
  const { ctx, req, session, now } = change;
  const rawEmail = stringField(((body.traits ?? {}) as Record<string, unknown>).email);
  if (rawEmail === undefined) return rejectSettings(change, [{ message: messages.generic('Did not receive any value changes.') }]);
  if (!emailPattern.test(rawEmail.trim())) return rejectSettings(change, [{ node: 'traits.email', message: messages.invalidEmail(rawEmail) }]);
  const email = normalizeEmail(rawEmail);
  const previousEmail = await identityEmail(ctx.db, session.identityId);
  if (email === previousEmail) return settingsSaved(change);
  const unprivileged = privilegeMissing(change);
  if (unprivileged) return unprivileged;
  if (await emailTaken(ctx.db, email)) return rejectSettings(change, [{ message: messages.duplicateIdentifier() }]);
  await changeEmail(ctx.db, session.identityId, email, now);
  await ctx.mailer.send(emailChangedMail(previousEmail, email, ctx.config.ui.recovery));
  const verification = await startVerificationFor(ctx, { email, csrfToken: req.cookies.ensureCsrf(), requestUrl: req.url });
  return settingsSaved(change, [
    {
      action: 'show_verification_ui',
      flow: { id: verification.id, verifiable_address: email, url: withFlowParam(ctx.config.ui.verification, verification.id) },
    },
  ]);
}

/** method=password: a new password; other sessions and pending recoveries end. */
export async function changePassword(change: SettingsChange, body: Record<string, unknown>): Promise<Outcome> {
  const { ctx, session, now } = change;
  const password = stringField(body.password);
  if (password === undefined) return rejectSettings(change, [{ node: 'password', message: messages.missingProperty('password') }]);
  const unprivileged = privilegeMissing(change);
  if (unprivileged) return unprivileged;
  const email = await identityEmail(ctx.db, session.identityId);
  const policyProblem = checkPasswordPolicy(password, email);
  if (policyProblem) return rejectSettings(change, [{ node: 'password', message: policyProblem }]);
  const current = await findCredential(ctx.db, session.identityId, 'password');
  if (current?.config.hashedPassword && (await verifyPassword(current.config.hashedPassword, password))) {
    return rejectSettings(change, [{ node: 'password', message: messages.passwordSameAsOld() }]);
  }
  await setPasswordHash(ctx.db, session.identityId, await hashPassword(password), now);
  // Whoever else held a session with the old password loses it, and a pending recovery its code or link.
  await revokeOtherSessions(ctx.db, session);
  await revokeRecoveryCodes(ctx.db, session.identityId);
  await ctx.mailer.send(passwordChangedMail(email, ctx.config.ui.recovery));
  return settingsSaved(change);
}

/** method=totp: link the authenticator the flow offered (the session rises to aal2), or unlink it. */
export async function changeTotp(change: SettingsChange, body: Record<string, unknown>): Promise<Outcome> {
  const { ctx, req, flow, session, now } = change;
  if (body.totp_unlink === true || body.totp_unlink === 'true') {
    const unprivileged = privilegeMissing(change);
    if (unprivileged) return unprivileged;
    await unlinkTotp(ctx.db, session.identityId);
    await ctx.mailer.send(totpRemovedMail(await identityEmail(ctx.db, session.identityId), ctx.config.ui.recovery));
    return settingsSaved(change);
  }
  const code = stringField(body.totp_code);
  if (code === undefined) return rejectSettings(change, [{ node: 'totp_code', message: messages.missingProperty('totp_code') }]);
  const unprivileged = privilegeMissing(change);
  if (unprivileged) return unprivileged;
  const secret = typeof flow.context.totpSecret === 'string' ? flow.context.totpSecret : undefined;
  const step = secret ? await matchTotp(secret, code.trim(), now) : undefined;
  if (!secret || step === undefined) return rejectSettings(change, [{ node: 'totp_code', message: messages.invalidTotpCode() }]);
  await linkTotp(ctx.db, session.identityId, secret, step, now);
  // Linking proves a second factor: the session is upgraded to aal2, under a new id.
  await issueSession(ctx, req, {
    identityId: session.identityId,
    aal: 'aal2',
    methods: [...session.authenticationMethods, { method: 'totp', aal: 'aal2', completed_at: now.toISOString() }],
    previous: session,
    authenticatedAt: session.authenticatedAt,
  });
  return settingsSaved(change);
}

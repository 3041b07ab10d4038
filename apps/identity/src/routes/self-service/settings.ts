import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { revokeRecoveryCodes } from '../../domain/codes.js';
import { changeEmail, linkTotp, setPasswordHash, unlinkTotp } from '../../domain/identity-changes.js';
import { emailTaken, findCredential, hasTotp, normalizeEmail, serializeIdentity } from '../../domain/identities.js';
import { checkPasswordPolicy, hashPassword, verifyPassword } from '../../domain/passwords.js';
import { isPrivileged, revokeOtherSessions, type Session } from '../../domain/sessions.js';
import { matchTotp } from '../../domain/totp.js';
import { errors } from '../../flows/errors.js';
import { type Flow, flowUi, serializeFlow, updateFlow } from '../../flows/flow-store.js';
import { messages, type UiText } from '../../flows/messages.js';
import { createSettingsFlow, currentSettingsUi, identityEmail } from '../../flows/settings.js';
import { attachMessage, clearMessages, setValue, withMessages } from '../../flows/ui-nodes.js';
import { startVerificationFor } from '../../flows/verification.js';
import { emailChangedMail, passwordChangedMail, totpRemovedMail } from '../../mail/templates.js';
import { stringField, submittedBody } from '../../http/body.js';
import { checkCsrf, ensureCsrf } from '../../http/cookies.js';
import { currentSession } from '../../http/current-session.js';
import { issueSession } from '../../http/issue-session.js';
import { acceptsJson, isJsonRequest } from '../../http/negotiation.js';
import { type FlowQuery, flowIdFrom, isExpired, requestUrlOf, requireFlow, returnToFrom, sendNewFlow, withFlowParam } from './flow-helpers.js';

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function settingsRoutes(app: FastifyInstance, ctx: IdentityContext) {
  /** The second-factor login, coming back to `returnTo` once the code is given. */
  const aal2Redirect = (returnTo?: string) =>
    `${ctx.config.identityUrl}/self-service/login/browser?aal=aal2${returnTo ? `&return_to=${encodeURIComponent(returnTo)}` : ''}`;

  /** Settings need the highest assurance level the identity has (Kratos' highest_available). */
  const lacksSecondFactor = async (session: Session) => session.aal === 'aal1' && (await hasTotp(ctx.db, session.identityId));

  app.get<{ Querystring: FlowQuery }>('/self-service/settings/browser', async (request, reply) => {
    const returnTo = returnToFrom(ctx, request.query.return_to);
    const session = await currentSession(request, ctx);
    if (!session) {
      if (acceptsJson(request)) throw errors.sessionInactive();
      const login = `${ctx.config.identityUrl}/self-service/login/browser${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`;
      return reply.redirect(login, 303);
    }
    if (await lacksSecondFactor(session)) {
      // As Kratos does, the login comes back to this request only when it names a return_to.
      const secondFactor = aal2Redirect(returnTo && requestUrlOf(ctx, request));
      if (isJsonRequest(request)) throw errors.sessionAal2Required(secondFactor);
      return reply.redirect(secondFactor, 303);
    }
    const flow = await createSettingsFlow(ctx, {
      identityId: session.identityId,
      csrfToken: ensureCsrf(request, reply, ctx),
      requestUrl: requestUrlOf(ctx, request),
      returnTo,
    });
    return sendNewFlow(request, reply, flow, ctx.config.ui.settings, await extra(flow));
  });

  const extra = async (flow: Flow, continueWith?: unknown[]) => ({
    identity: await serializeIdentity(ctx.db, flow.identityId ?? '', ctx.config.identityUrl),
    ...(continueWith ? { continue_with: continueWith } : {}),
  });

  /** The flow, if it belongs to the caller's session and that session is strong enough. */
  const ownedFlow = async (request: FastifyRequest<{ Querystring: FlowQuery }>, id: string | undefined, aal2ReturnTo: (flow: Flow) => string | undefined) => {
    const session = await currentSession(request, ctx);
    if (!session) throw errors.noSessionForSettings();
    const flow = await requireFlow(ctx, flowIdFrom(id), 'settings');
    if (flow.identityId !== session.identityId) throw errors.identityMismatch();
    if (await lacksSecondFactor(session)) throw errors.sessionAal2Required(aal2Redirect(aal2ReturnTo(flow)));
    return { session, flow };
  };

  app.get<{ Querystring: FlowQuery }>('/self-service/settings/flows', async (request) => {
    // After the second factor the person comes back to the settings screen with this flow, not to this JSON.
    const { flow } = await ownedFlow(request, request.query.id, (owned) => withFlowParam(ctx.config.ui.settings, owned.id));
    if (isExpired(flow, ctx.clock.now())) throw errors.flowExpiredOnGet('settings', `${ctx.config.identityUrl}/self-service/settings/browser`);
    return serializeFlow(flow, await extra(flow));
  });

  app.post<{ Querystring: FlowQuery }>('/self-service/settings', async (request, reply) => {
    const json = isJsonRequest(request);
    const { session, flow } = await ownedFlow(request, request.query.flow, (owned) => owned.returnTo ?? undefined);
    const now = ctx.clock.now();
    if (isExpired(flow, now)) {
      const replacement = await createSettingsFlow(ctx, {
        identityId: session.identityId,
        csrfToken: ensureCsrf(request, reply, ctx),
        requestUrl: requestUrlOf(ctx, request),
        returnTo: flow.returnTo ?? undefined,
        uiMessages: [messages.settingsFlowExpired((now.getTime() - flow.expiresAt.getTime()) / 60_000, flow.expiresAt)],
      });
      if (json) throw errors.flowExpired(flow.expiresAt, now, replacement.id);
      return reply.redirect(withFlowParam(ctx.config.ui.settings, replacement.id), 303);
    }
    const body = submittedBody(request.body);
    checkCsrf(request, ctx, body.csrf_token);

    const fail = async (problems: { node?: string; message: UiText }[], status = 400) => {
      let ui = clearMessages(flowUi(flow));
      ui = { ...ui, nodes: setValue(ui.nodes, 'password', undefined) };
      for (const problem of problems) {
        ui = problem.node ? { ...ui, nodes: attachMessage(ui.nodes, problem.node, problem.message) } : { ...ui, messages: [...(ui.messages ?? []), problem.message] };
      }
      const updated = await updateFlow(ctx.db, flow, { ui }, now);
      if (json) return reply.code(status).send(serializeFlow(updated, await extra(updated)));
      return reply.redirect(withFlowParam(ctx.config.ui.settings, flow.id), 303);
    };
    /** Protected changes need a recent login; the client re-authenticates, then submits again. */
    const requirePrivilege = () => {
      if (!isPrivileged(session, now)) {
        throw errors.sessionRefreshRequired(
          `${ctx.config.identityUrl}/self-service/login/browser?refresh=true&return_to=${encodeURIComponent(`${ctx.config.identityUrl}/self-service/settings?flow=${flow.id}`)}`,
        );
      }
    };
    const succeed = async (continueWith: unknown[] = []) => {
      const { ui, context } = await currentSettingsUi(ctx, flow.id, session.identityId);
      const updated = await updateFlow(ctx.db, flow, { state: 'success', ui: withMessages(ui, [messages.settingsSaved()]), context }, now);
      const redirect = flow.returnTo ?? withFlowParam(ctx.config.ui.settings, flow.id);
      if (!json) return reply.redirect(redirect, 303);
      return reply.send(serializeFlow(updated, await extra(updated, [...continueWith, { action: 'redirect_browser_to', redirect_browser_to: redirect }])));
    };

    if (body.method === 'profile') {
      const traits = (body.traits ?? {}) as Record<string, unknown>;
      const rawEmail = stringField(traits.email);
      if (rawEmail === undefined) return fail([{ message: messages.generic('Did not receive any value changes.') }]);
      if (!emailPattern.test(rawEmail.trim())) return fail([{ node: 'traits.email', message: messages.invalidEmail(rawEmail) }]);
      const email = normalizeEmail(rawEmail);
      const previousEmail = await identityEmail(ctx.db, session.identityId);
      if (email === previousEmail) return succeed();
      requirePrivilege();
      if (await emailTaken(ctx.db, email)) return fail([{ message: messages.duplicateIdentifier() }]);
      await changeEmail(ctx.db, session.identityId, email, now);
      await ctx.mailer.send(emailChangedMail(previousEmail, email, ctx.config.ui.recovery));
      const verification = await startVerificationFor(ctx, { email, csrfToken: ensureCsrf(request, reply, ctx), requestUrl: requestUrlOf(ctx, request) });
      return succeed([
        {
          action: 'show_verification_ui',
          flow: { id: verification.id, verifiable_address: email, url: withFlowParam(ctx.config.ui.verification, verification.id) },
        },
      ]);
    }

    if (body.method === 'password') {
      const password = stringField(body.password);
      if (password === undefined) return fail([{ node: 'password', message: messages.missingProperty('password') }]);
      requirePrivilege();
      const email = await identityEmail(ctx.db, session.identityId);
      const policyProblem = checkPasswordPolicy(password, email);
      if (policyProblem) return fail([{ node: 'password', message: policyProblem }]);
      const current = await findCredential(ctx.db, session.identityId, 'password');
      if (current?.config.hashedPassword && (await verifyPassword(current.config.hashedPassword, password))) {
        return fail([{ node: 'password', message: messages.passwordSameAsOld() }]);
      }
      await setPasswordHash(ctx.db, session.identityId, await hashPassword(password), now);
      // Whoever else held a session with the old password loses it, and a pending recovery its code or link.
      await revokeOtherSessions(ctx.db, session);
      await revokeRecoveryCodes(ctx.db, session.identityId);
      await ctx.mailer.send(passwordChangedMail(email, ctx.config.ui.recovery));
      return succeed();
    }

    if (body.method === 'totp') {
      if (body.totp_unlink === true || body.totp_unlink === 'true') {
        requirePrivilege();
        await unlinkTotp(ctx.db, session.identityId);
        await ctx.mailer.send(totpRemovedMail(await identityEmail(ctx.db, session.identityId), ctx.config.ui.recovery));
        return succeed();
      }
      const code = stringField(body.totp_code);
      if (code === undefined) return fail([{ node: 'totp_code', message: messages.missingProperty('totp_code') }]);
      requirePrivilege();
      const secret = typeof flow.context.totpSecret === 'string' ? flow.context.totpSecret : undefined;
      const step = secret ? await matchTotp(secret, code.trim(), now) : undefined;
      if (!secret || step === undefined) return fail([{ node: 'totp_code', message: messages.invalidTotpCode() }]);
      await linkTotp(ctx.db, session.identityId, secret, step, now);
      // Linking proves a second factor: the session is upgraded to aal2, under a new id.
      await issueSession(request, reply, ctx, {
        identityId: session.identityId,
        aal: 'aal2',
        methods: [...session.authenticationMethods, { method: 'totp', aal: 'aal2', completed_at: now.toISOString() }],
        previous: session,
        authenticatedAt: session.authenticatedAt,
      });
      return succeed();
    }

    return fail([{ message: messages.noSettingsStrategy() }]);
  });
}

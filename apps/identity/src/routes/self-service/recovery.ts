import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { consumeCode, issueCode, revokeRecoveryCodes } from '../../domain/codes.js';
import { findRecoveryAddress } from '../../domain/identity-changes.js';
import { markAddressVerified, normalizeEmail } from '../../domain/identities.js';
import { privilegedWindowMs, revokeAllSessions } from '../../domain/sessions.js';
import { errors } from '../../flows/errors.js';
import { countSubmission, createFlow, type Flow, flowUi, serializeFlow, updateFlow } from '../../flows/flow-store.js';
import { messages, type UiText } from '../../flows/messages.js';
import { recoveryUi } from '../../flows/recovery-ui.js';
import { createSettingsFlow } from '../../flows/settings.js';
import { attachMessage, clearMessages, withMessages } from '../../flows/ui-nodes.js';
import { stringField, submittedBody } from '../../http/body.js';
import { checkCsrf, ensureCsrf, rotateCsrf } from '../../http/cookies.js';
import { currentSession } from '../../http/current-session.js';
import { issueSession } from '../../http/issue-session.js';
import { isJsonRequest } from '../../http/negotiation.js';
import { consumeRateLimit, rateRules } from '../../http/rate-limit.js';
import { recoveryCodeMail, recoveryLinkMail } from '../../mail/templates.js';
import { type FlowQuery, flowIdFrom, getBrowserFlow, isExpired, requestUrlOf, requireFlow, returnToFrom, sendNewFlow, withFlowParam } from './flow-helpers.js';

const maxCodeSubmissions = 5;

export async function recoveryRoutes(app: FastifyInstance, ctx: IdentityContext) {
  const action = (id: string) => `${ctx.config.identityUrl}/self-service/recovery?flow=${id}`;
  const newFlow = (request: FastifyRequest, reply: FastifyReply, returnTo: string | undefined, uiMessages: UiText[] = []) =>
    createFlow(ctx.db, {
      kind: 'recovery',
      state: 'choose_method',
      active: 'code',
      csrfToken: ensureCsrf(request, reply, ctx),
      requestUrl: requestUrlOf(ctx, request),
      returnTo,
      ui: (id) => withMessages(recoveryUi.chooseMethod(action(id)), uiMessages),
      now: ctx.clock.now(),
    });

  const replaceFlow = async (request: FastifyRequest, reply: FastifyReply, flow: Flow, reason: UiText) => {
    const replacement = await newFlow(request, reply, flow.returnTo ?? undefined, [reason]);
    if (!isJsonRequest(request)) return reply.redirect(withFlowParam(ctx.config.ui.recovery, replacement.id), 303);
    throw errors.flowReplaced(replacement.id);
  };

  /** A recovered account: privileged session, fresh CSRF, and a settings flow to choose a new password. */
  const recover = async (request: FastifyRequest, reply: FastifyReply, flow: Flow, identityId: string, address: string, method: 'code_recovery' | 'link_recovery') => {
    const now = ctx.clock.now();
    await markAddressVerified(ctx.db, address, now);
    // Whoever held a session, a code or a link of the account may be why it is being recovered.
    await revokeAllSessions(ctx.db, identityId);
    await revokeRecoveryCodes(ctx.db, identityId);
    await issueSession(request, reply, ctx, {
      identityId,
      aal: 'aal1',
      methods: [{ method, aal: 'aal1', completed_at: now.toISOString() }],
      previous: await currentSession(request, ctx),
    });
    const csrfToken = rotateCsrf(reply, ctx);
    await updateFlow(ctx.db, flow, { state: 'passed_challenge', ui: clearMessages(flowUi(flow)) }, now);
    const settings = await createSettingsFlow(ctx, {
      identityId,
      csrfToken,
      requestUrl: requestUrlOf(ctx, request),
      returnTo: flow.returnTo ?? undefined,
      uiMessages: [messages.recoverySucceeded(new Date(now.getTime() + privilegedWindowMs), now)],
    });
    return withFlowParam(ctx.config.ui.settings, settings.id);
  };

  app.get<{ Querystring: FlowQuery }>('/self-service/recovery/browser', async (request, reply) => {
    const returnTo = returnToFrom(ctx, request.query.return_to);
    if (await currentSession(request, ctx)) {
      if (isJsonRequest(request)) throw errors.sessionAlreadyAvailable('recovery');
      return reply.redirect(returnTo ?? ctx.config.ui.afterLogin, 302);
    }
    return sendNewFlow(request, reply, await newFlow(request, reply, returnTo), ctx.config.ui.recovery);
  });

  app.get<{ Querystring: FlowQuery }>('/self-service/recovery/flows', async (request, reply) =>
    serializeFlow(await getBrowserFlow(request, reply, ctx, 'recovery')),
  );

  const submit = async (request: FastifyRequest<{ Querystring: FlowQuery }>, reply: FastifyReply) => {
    const json = isJsonRequest(request);
    const flow = await requireFlow(ctx, flowIdFrom(request.query.flow), 'recovery');
    const now = ctx.clock.now();

    // The e-mailed link: GET ?flow=&token=.
    if (request.method === 'GET' && request.query.token) {
      const check = await consumeCode(ctx.db, ctx.secret, { flowId: flow.id, kind: 'recovery_link', code: request.query.token, now });
      if (check.outcome !== 'valid' || !check.identityId || isExpired(flow, now)) {
        const replacement = await newFlow(request, reply, flow.returnTo ?? undefined, [messages.recoveryTokenInvalid()]);
        return reply.redirect(withFlowParam(ctx.config.ui.recovery, replacement.id), 303);
      }
      return reply.redirect(await recover(request, reply, flow, check.identityId, check.address, 'link_recovery'), 303);
    }

    if (await currentSession(request, ctx)) throw errors.sessionAlreadyAvailable('recovery');
    if (isExpired(flow, now)) {
      const replacement = await newFlow(request, reply, flow.returnTo ?? undefined, [
        messages.recoveryFlowExpired((now.getTime() - flow.expiresAt.getTime()) / 60_000, flow.expiresAt),
      ]);
      const target = json
        ? `${ctx.config.identityUrl}/self-service/recovery/flows?id=${replacement.id}`
        : withFlowParam(ctx.config.ui.recovery, replacement.id);
      return reply.redirect(target, 303);
    }
    if (flow.state === 'passed_challenge') return replaceFlow(request, reply, flow, messages.alreadyCompleted(4060001));

    const body = submittedBody(request.body);
    const answer = async (updated: Flow, status = 200) =>
      json ? reply.code(status).send(serializeFlow(updated, {}, ensureCsrf(request, reply, ctx))) : reply.redirect(withFlowParam(ctx.config.ui.recovery, flow.id), 303);
    checkCsrf(request, ctx, body.csrf_token);
    const method = body.method === 'link' ? 'link' : 'code';
    const code = stringField(body.code);

    if (method === 'code' && code) {
      await consumeRateLimit(ctx, [rateRules.recoveryIp(request.ip)]);
      if ((await countSubmission(ctx.db, flow)) > maxCodeSubmissions) {
        return replaceFlow(request, reply, flow, messages.generic('The request was submitted too often. Please request another code.'));
      }
      const check = await consumeCode(ctx.db, ctx.secret, { flowId: flow.id, kind: 'recovery_code', code: code.trim(), now });
      if (check.outcome !== 'valid' || !check.identityId) {
        const ui = withMessages(clearMessages(flowUi(flow)), [messages.recoveryCodeInvalid()]);
        return answer(await updateFlow(ctx.db, flow, { ui }, now));
      }
      const settingsUrl = await recover(request, reply, flow, check.identityId, check.address, 'code_recovery');
      if (json) throw errors.locationChangeRequired(settingsUrl);
      return reply.redirect(settingsUrl, 303);
    }

    const rawEmail = stringField(body.email);
    if (!rawEmail) {
      const ui = clearMessages(flowUi(flow));
      return answer(await updateFlow(ctx.db, flow, { ui: { ...ui, nodes: attachMessage(ui.nodes, 'email', messages.missingProperty('email')) } }, now), 400);
    }
    const email = normalizeEmail(rawEmail);
    await consumeRateLimit(ctx, [rateRules.recoveryIp(request.ip), rateRules.recoveryAddress(email)]);
    // Spec §2/§7: an unknown address is the UserNotFound outcome (4000037). Registration already
    // tells whether an address exists, so this reveals nothing new; the limits above still count it.
    const address = await findRecoveryAddress(ctx.db, email);
    if (!address) {
      const ui = clearMessages(flowUi(flow));
      return answer(await updateFlow(ctx.db, flow, { ui: { ...ui, nodes: attachMessage(ui.nodes, 'email', messages.accountNotFound()) } }, now), 400);
    }
    const ui = method === 'link' ? recoveryUi.linkSent(action(flow.id), email) : recoveryUi.codeSent(action(flow.id), email);
    const updated = await updateFlow(ctx.db, flow, { state: 'sent_email', active: method, ui, submissions: 0 }, now);
    if (method === 'link') {
      const token = await issueCode(ctx.db, ctx.secret, { flowId: flow.id, kind: 'recovery_link', address: email, identityId: address.identityId, now });
      await ctx.mailer.send(recoveryLinkMail(email, `${action(flow.id)}&token=${token}`));
    } else {
      const recoveryCode = await issueCode(ctx.db, ctx.secret, { flowId: flow.id, kind: 'recovery_code', address: email, identityId: address.identityId, now });
      await ctx.mailer.send(recoveryCodeMail(email, recoveryCode));
    }
    return answer(updated);
  };

  app.post<{ Querystring: FlowQuery }>('/self-service/recovery', submit);
  app.get<{ Querystring: FlowQuery }>('/self-service/recovery', submit);
}

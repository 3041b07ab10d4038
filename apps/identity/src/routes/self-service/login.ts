import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { findCredential, findPasswordCredential, hasTotp, normalizeEmail } from '../../domain/identities.js';
import { claimTotpStep } from '../../domain/identity-changes.js';
import { verifyDecoy, verifyPassword } from '../../domain/passwords.js';
import { serializeSession, type Session } from '../../domain/sessions.js';
import { matchTotp } from '../../domain/totp.js';
import { errors } from '../../flows/errors.js';
import { createFlow, type Flow, flowUi, serializeFlow, updateFlow } from '../../flows/flow-store.js';
import { loginUi } from '../../flows/login-ui.js';
import { messages, type UiText } from '../../flows/messages.js';
import { attachMessage, clearMessages, setValue, withMessages } from '../../flows/ui-nodes.js';
import { stringField, submittedBody } from '../../http/body.js';
import { checkCsrf, ensureCsrf } from '../../http/cookies.js';
import { currentSession } from '../../http/current-session.js';
import { issueSession } from '../../http/issue-session.js';
import { isJsonRequest } from '../../http/negotiation.js';
import { isKnownDevice, setDeviceCookie } from '../../http/device-cookie.js';
import { claimLoginAttempt, clearLoginFailures } from '../../http/login-delay.js';
import { consumeRateLimit, rateRules, refundRateLimit } from '../../http/rate-limit.js';
import { type FlowQuery, flowIdFrom, getBrowserFlow, isExpired, requestUrlOf, requireFlow, returnToFrom, sendNewFlow, withFlowParam } from './flow-helpers.js';

type LoginOptions = { returnTo?: string | undefined; refresh?: boolean; aal: 'aal1' | 'aal2'; identifier?: string; uiMessages?: UiText[] };

export async function loginRoutes(app: FastifyInstance, ctx: IdentityContext) {
  const action = (id: string) => `${ctx.config.identityUrl}/self-service/login?flow=${id}`;
  const uiUrl = (flow: Flow) => (flow.requestedAal === 'aal2' ? ctx.config.ui.secondFactor : ctx.config.ui.login);
  const secondFactorUrl = (returnTo: string | null | undefined) =>
    `${ctx.config.identityUrl}/self-service/login/browser?aal=aal2${returnTo ? `&return_to=${encodeURIComponent(returnTo)}` : ''}`;

  const newFlow = (request: FastifyRequest, reply: FastifyReply, options: LoginOptions) =>
    createFlow(ctx.db, {
      kind: 'login',
      state: 'choose_method',
      csrfToken: ensureCsrf(request, reply, ctx),
      requestUrl: requestUrlOf(ctx, request),
      returnTo: options.returnTo,
      requestedAal: options.aal,
      refresh: options.refresh ?? false,
      ui: (id) => {
        const ui =
          options.aal === 'aal2'
            ? loginUi.secondFactor(action(id))
            : options.refresh && options.identifier
              ? loginUi.refresh(action(id), options.identifier)
              : loginUi.firstFactor(action(id));
        return options.uiMessages?.length ? withMessages(ui, [...(ui.messages ?? []), ...options.uiMessages]) : ui;
      },
      now: ctx.clock.now(),
    });

  app.get<{ Querystring: FlowQuery }>('/self-service/login/browser', async (request, reply) => {
    const { aal = 'aal1', refresh } = request.query;
    if (aal !== 'aal1' && aal !== 'aal2') {
      throw errors.badRequest(`Unable to parse AuthenticationMethod Assurance Level (AAL): expected one of [aal1, aal2] but got ${aal}`);
    }
    const returnTo = returnToFrom(ctx, request.query.return_to);
    const session = await currentSession(request, ctx);
    if (!session) {
      if (aal === 'aal2') throw errors.sessionAal1Required();
      return sendNewFlow(request, reply, await newFlow(request, reply, { returnTo, aal }), ctx.config.ui.login);
    }
    const wantsRefresh = refresh === 'true';
    const upgradable = aal === 'aal2' && session.aal === 'aal1' && (await hasTotp(ctx.db, session.identityId));
    if (!wantsRefresh && !upgradable) {
      if (isJsonRequest(request)) throw errors.sessionAlreadyAvailable('login');
      return reply.redirect(returnTo ?? ctx.config.ui.afterLogin, 303);
    }
    const identifier = wantsRefresh ? (await findCredential(ctx.db, session.identityId, 'password'))?.identifier : undefined;
    const flow = await newFlow(request, reply, { returnTo, aal: upgradable ? 'aal2' : 'aal1', refresh: wantsRefresh, identifier });
    return sendNewFlow(request, reply, flow, uiUrl(flow));
  });

  app.get<{ Querystring: FlowQuery }>('/self-service/login/flows', async (request) =>
    serializeFlow(await getBrowserFlow(request, ctx, 'login', `${ctx.config.identityUrl}/self-service/login/browser`)),
  );

  app.post<{ Querystring: FlowQuery }>('/self-service/login', async (request, reply) => {
    const json = isJsonRequest(request);
    const flow = await requireFlow(ctx, flowIdFrom(request.query.flow), 'login');
    const session = await currentSession(request, ctx);
    const now = ctx.clock.now();
    const fail = async (problems: { node?: string; message: UiText }[], identifier?: string) => {
      let ui = clearMessages(flowUi(flow));
      // Whoever holds a flow id may submit to it: the answer shows what this caller typed (on a
      // refresh, its own identifier), never what the flow's owner typed before.
      const shown = flow.refresh ? session && (await findCredential(ctx.db, session.identityId, 'password'))?.identifier : identifier;
      ui = { ...ui, nodes: setValue(setValue(ui.nodes, 'password', undefined), 'identifier', shown) };
      for (const problem of problems) {
        ui = problem.node ? { ...ui, nodes: attachMessage(ui.nodes, problem.node, problem.message) } : { ...ui, messages: [...(ui.messages ?? []), problem.message] };
      }
      const updated = await updateFlow(ctx.db, flow, { ui }, now);
      if (json) return reply.code(400).send(serializeFlow(updated, {}, ensureCsrf(request, reply, ctx)));
      return reply.redirect(withFlowParam(uiUrl(flow), flow.id), 303);
    };

    if (session && !flow.refresh && (flow.requestedAal !== 'aal2' || session.aal === 'aal2')) {
      if (!json) return reply.redirect(ctx.config.ui.afterLogin, 303);
      return fail([{ message: messages.generic('A valid session was detected and thus login is not possible. Did you forget to set `?refresh=true`?') }]);
    }
    if (!session && flow.requestedAal === 'aal2') throw errors.sessionAal1Required();
    if (isExpired(flow, now)) {
      const replacement = await newFlow(request, reply, {
        returnTo: flow.returnTo ?? undefined,
        aal: flow.requestedAal ?? 'aal1',
        uiMessages: [messages.loginFlowExpired((now.getTime() - flow.expiresAt.getTime()) / 60_000, flow.expiresAt)],
      });
      if (json) throw errors.flowExpired(flow.expiresAt, now, replacement.id);
      return reply.redirect(withFlowParam(uiUrl(replacement), replacement.id), 303);
    }
    if (flow.state === 'passed_challenge') return fail([{ message: messages.alreadyCompleted(4010007) }]);

    const body = submittedBody(request.body);
    if (body.method === 'password' && flow.requestedAal !== 'aal2') return passwordLogin(body, session);
    if (body.method === 'totp' && flow.requestedAal === 'aal2' && session) return totpLogin(body, session);
    return fail([{ message: messages.noLoginStrategy() }]);

    async function passwordLogin(body: Record<string, unknown>, previous: Session | undefined) {
      const identifier = stringField(body.identifier) ?? stringField(body.password_identifier);
      const password = stringField(body.password);
      const missing = [
        ...(identifier === undefined ? [{ node: 'identifier', message: messages.missingProperty('identifier') }] : []),
        ...(password === undefined ? [{ node: 'password', message: messages.missingProperty('password') }] : []),
      ];
      if (missing.length) return fail(missing, identifier);
      checkCsrf(request, ctx, body.csrf_token);
      const email = normalizeEmail(identifier ?? '');
      await consumeRateLimit(ctx, [rateRules.loginIp(request.ip)]);
      const credential = await findPasswordCredential(ctx.db, email);
      // A browser that signed in to this identity before is not held up by failures others caused.
      const knownDevice = credential !== undefined && isKnownDevice(request, ctx, credential.identityId);
      if (!knownDevice) {
        // The attempt counts as a failure until it is judged right (cleared and refunded below).
        await claimLoginAttempt(ctx, email, request.ip);
        await consumeRateLimit(ctx, [rateRules.loginFailures(email)]);
      }
      const valid = credential ? await verifyPassword(credential.config.hashedPassword ?? '', password ?? '') : (await verifyDecoy(password ?? ''), false);
      if (!credential || !valid || (previous && flow.refresh && previous.identityId !== credential.identityId)) {
        ctx.metrics.login('invalid_credentials');
        return fail([{ message: messages.invalidCredentials() }], identifier);
      }
      if (!knownDevice) {
        await clearLoginFailures(ctx, email, request.ip);
        await refundRateLimit(ctx, rateRules.loginFailures(email));
      }
      setDeviceCookie(reply, ctx, credential.identityId);
      const passwordMethod = { method: 'password', aal: 'aal1', completed_at: now.toISOString() } as const;
      // As Kratos does, a refresh adds the password to what the session already proved and keeps its level.
      const refreshed = flow.refresh && previous ? previous : undefined;
      const session = await issueSession(request, reply, ctx, {
        identityId: credential.identityId,
        aal: refreshed?.aal ?? 'aal1',
        methods: refreshed ? [...refreshed.authenticationMethods, passwordMethod] : [passwordMethod],
        previous,
      });
      await updateFlow(ctx.db, flow, { state: 'passed_challenge', active: 'password' }, now);
      if (session.aal !== 'aal2' && (await hasTotp(ctx.db, credential.identityId))) {
        ctx.metrics.login('second_factor_required');
        const target = secondFactorUrl(flow.returnTo);
        if (json) throw errors.locationChangeRequired(target);
        return reply.redirect(target, 303);
      }
      return succeed(session);
    }

    async function totpLogin(body: Record<string, unknown>, previous: Session) {
      const code = stringField(body.totp_code);
      if (code === undefined) return fail([{ node: 'totp_code', message: messages.missingProperty('totp_code') }]);
      checkCsrf(request, ctx, body.csrf_token);
      await consumeRateLimit(ctx, [rateRules.loginIp(request.ip), rateRules.secondFactorFailures(previous.identityId)]);
      const totp = await findCredential(ctx.db, previous.identityId, 'totp');
      if (!totp) return fail([{ message: messages.noTotpDevice() }]);
      // A code works once: its time step, or an older one, is refused after it was accepted.
      const step = await matchTotp(totp.config.totpSecret ?? '', code.trim(), now, totp.lastUsedStep);
      if (step === undefined || !(await claimTotpStep(ctx.db, previous.identityId, step))) {
        ctx.metrics.login('invalid_totp_code');
        return fail([{ message: messages.invalidTotpCode() }]);
      }
      await refundRateLimit(ctx, rateRules.secondFactorFailures(previous.identityId));
      const session = await issueSession(request, reply, ctx, {
        identityId: previous.identityId,
        aal: 'aal2',
        methods: [...previous.authenticationMethods, { method: 'totp', aal: 'aal2', completed_at: now.toISOString() }],
        previous,
        authenticatedAt: previous.authenticatedAt,
      });
      await updateFlow(ctx.db, flow, { state: 'passed_challenge', active: 'totp' }, now);
      return succeed(session);
    }

    async function succeed(session: Session) {
      ctx.metrics.login('success');
      const target = flow.returnTo ?? ctx.config.ui.afterLogin;
      if (!json) return reply.redirect(target, 303);
      return reply.send({
        session: await serializeSession(ctx.db, session, ctx.config.identityUrl),
        continue_with: [{ action: 'redirect_browser_to', redirect_browser_to: target }],
      });
    }
  });
}

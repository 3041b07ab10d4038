import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { createIdentity, emailTaken, normalizeEmail, serializeIdentity } from '../../domain/identities.js';
import { checkPasswordPolicy, hashPassword } from '../../domain/passwords.js';
import { createSession, serializeSession } from '../../domain/sessions.js';
import { errors } from '../../flows/errors.js';
import { createFlow, type Flow, flowUi, serializeFlow, updateFlow } from '../../flows/flow-store.js';
import { messages, type UiText } from '../../flows/messages.js';
import { attachMessage, clearMessages, csrfNode, emailTraitNode, input, setValue, submit, type Ui, withMessages } from '../../flows/ui-nodes.js';
import { startVerificationFor } from '../../flows/verification.js';
import { stringField, submittedBody } from '../../http/body.js';
import { checkCsrf, ensureCsrf, setSessionCookie } from '../../http/cookies.js';
import { currentSession } from '../../http/current-session.js';
import { isJsonRequest } from '../../http/negotiation.js';
import { consumeRateLimit, rateRules } from '../../http/rate-limit.js';
import { type FlowQuery, flowIdFrom, getBrowserFlow, isExpired, requestUrlOf, requireFlow, returnToFrom, sendNewFlow, withFlowParam } from './flow-helpers.js';

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const registrationUi = (ctx: IdentityContext, id: string): Ui => ({
  action: `${ctx.config.identityUrl}/self-service/registration?flow=${id}`,
  method: 'POST',
  nodes: [
    csrfNode(''),
    emailTraitNode('default'),
    input('password', 'password', 'password', { required: true, autocomplete: 'new-password', label: messages.password() }),
    submit('password', 'method', 'password', messages.signUp()),
  ],
});

export async function registrationRoutes(app: FastifyInstance, ctx: IdentityContext) {
  const newFlow = (request: FastifyRequest, reply: FastifyReply, returnTo: string | undefined, uiMessages: UiText[] = []) =>
    createFlow(ctx.db, {
      kind: 'registration',
      state: 'choose_method',
      csrfToken: ensureCsrf(request, reply, ctx),
      requestUrl: requestUrlOf(ctx, request),
      returnTo,
      ui: (id) => withMessages(registrationUi(ctx, id), uiMessages),
      now: ctx.clock.now(),
    });

  app.get<{ Querystring: FlowQuery }>('/self-service/registration/browser', async (request, reply) => {
    const returnTo = returnToFrom(ctx, request.query.return_to);
    if (await currentSession(request, ctx)) {
      if (isJsonRequest(request)) throw errors.sessionAlreadyAvailable('registration');
      return reply.redirect(returnTo ?? ctx.config.ui.afterLogin, 303);
    }
    return sendNewFlow(request, reply, await newFlow(request, reply, returnTo), ctx.config.ui.registration);
  });

  app.get<{ Querystring: FlowQuery }>('/self-service/registration/flows', async (request, reply) =>
    serializeFlow(await getBrowserFlow(request, reply, ctx, 'registration')),
  );

  app.post<{ Querystring: FlowQuery }>('/self-service/registration', async (request, reply) => {
    const json = isJsonRequest(request);
    const flow = await requireFlow(ctx, flowIdFrom(request.query.flow), 'registration');
    if (await currentSession(request, ctx)) {
      if (json) throw errors.sessionAlreadyAvailable('registration');
      return reply.redirect(flow.returnTo ?? ctx.config.ui.afterLogin, 302);
    }
    const now = ctx.clock.now();
    if (isExpired(flow, now)) {
      const replacement = await newFlow(request, reply, flow.returnTo ?? undefined, [messages.registrationFlowExpired((now.getTime() - flow.expiresAt.getTime()) / 60_000, flow.expiresAt)]);
      if (json) throw errors.flowExpired(flow.expiresAt, now, replacement.id);
      return reply.redirect(withFlowParam(ctx.config.ui.registration, replacement.id), 303);
    }

    if (flow.state === 'passed_challenge') {
      // Says only that the flow is done: not the address typed into it, to whoever holds its id.
      const done = clearMessages(flowUi(flow));
      const ui = withMessages({ ...done, nodes: setValue(done.nodes, 'traits.email', undefined) }, [messages.alreadyCompleted(4040002)]);
      const updated = await updateFlow(ctx.db, flow, { ui }, now);
      if (json) return reply.code(400).send(serializeFlow(updated, {}, ensureCsrf(request, reply, ctx)));
      return reply.redirect(withFlowParam(ctx.config.ui.registration, flow.id), 302);
    }

    const body = submittedBody(request.body);
    const traits = (body.traits ?? {}) as Record<string, unknown>;
    const rawEmail = stringField(traits.email);
    const password = stringField(body.password);
    const fail = async (problems: { node?: string; message: UiText }[]) => {
      let ui = clearMessages(flowUi(flow));
      ui = { ...ui, nodes: setValue(setValue(ui.nodes, 'traits.email', rawEmail), 'password', undefined) };
      for (const problem of problems) {
        if (problem.node) ui = { ...ui, nodes: attachMessage(ui.nodes, problem.node, problem.message) };
        else ui = { ...ui, messages: [...(ui.messages ?? []), problem.message] };
      }
      const updated = await updateFlow(ctx.db, flow, { ui }, now);
      if (json) return reply.code(400).send(serializeFlow(updated, {}, ensureCsrf(request, reply, ctx)));
      return reply.redirect(withFlowParam(ctx.config.ui.registration, flow.id), 302);
    };

    if (body.method !== 'password') return fail([{ message: messages.noRegistrationStrategy() }]);
    const schemaProblems: { node: string; message: UiText }[] = [];
    if (rawEmail === undefined) schemaProblems.push({ node: 'traits.email', message: messages.missingProperty('email') });
    else if (!emailPattern.test(rawEmail.trim())) schemaProblems.push({ node: 'traits.email', message: messages.invalidEmail(rawEmail) });
    if (password === undefined) schemaProblems.push({ node: 'password', message: messages.missingProperty('password') });
    else if (password === '') schemaProblems.push({ node: 'password', message: messages.tooShort(1, 0) });
    if (schemaProblems.length) {
      ctx.metrics.registration('invalid_input');
      return fail(schemaProblems);
    }
    checkCsrf(request, ctx, body.csrf_token);

    const email = normalizeEmail(rawEmail ?? '');
    await consumeRateLimit(ctx, [rateRules.registrationIp(request.ip)]);
    const policyProblem = checkPasswordPolicy(password ?? '', email);
    if (policyProblem) {
      ctx.metrics.registration('weak_password');
      return fail([{ node: 'password', message: policyProblem }]);
    }
    if (await emailTaken(ctx.db, email)) {
      ctx.metrics.registration('duplicate_identifier');
      return fail([{ message: messages.duplicateIdentifier() }]);
    }

    let identityId: string;
    try {
      identityId = (await createIdentity(ctx.db, { email, hashedPassword: await hashPassword(password ?? ''), now })).id;
    } catch (error) {
      // Two registrations for one address at once: the unique index lets one through.
      if (await emailTaken(ctx.db, email)) {
        ctx.metrics.registration('duplicate_identifier');
        return fail([{ message: messages.duplicateIdentifier() }]);
      }
      throw error;
    }
    ctx.metrics.registration('success');
    return completeRegistration(request, reply, ctx, flow, identityId, email);
  });
}

async function completeRegistration(request: FastifyRequest, reply: FastifyReply, ctx: IdentityContext, flow: Flow, identityId: string, email: string) {
  const now = ctx.clock.now();
  const csrfToken = ensureCsrf(request, reply, ctx);
  const verification = await startVerificationFor(ctx, { email, csrfToken, requestUrl: requestUrlOf(ctx, request), returnTo: flow.returnTo ?? undefined });
  const { session, token } = await createSession(ctx.db, {
    identityId,
    aal: 'aal1',
    methods: [{ method: 'password', aal: 'aal1', completed_at: now.toISOString() }],
    device: { ip_address: request.ip, user_agent: request.headers['user-agent'] ?? '', location: '' },
    now,
  });
  setSessionCookie(reply, ctx, token, session.expiresAt);
  await updateFlow(ctx.db, flow, { state: 'passed_challenge', ui: clearMessages(flowUi(flow)) }, now);
  const verificationUrl = withFlowParam(ctx.config.ui.verification, verification.id);
  if (!isJsonRequest(request)) return reply.redirect(verificationUrl, 303);
  return reply.send({
    identity: await serializeIdentity(ctx.db, identityId, ctx.config.identityUrl),
    session: await serializeSession(ctx.db, session, ctx.config.identityUrl),
    continue_with: [
      { action: 'redirect_browser_to', redirect_browser_to: flow.returnTo ?? ctx.config.ui.afterLogin },
      { action: 'show_verification_ui', flow: { id: verification.id, verifiable_address: email, url: verificationUrl } },
    ],
  });
}

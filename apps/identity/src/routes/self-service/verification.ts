import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../../context.js';
import { consumeCode } from '../../domain/codes.js';
import { markAddressVerified, normalizeEmail } from '../../domain/identities.js';
import { errors } from '../../flows/errors.js';
import { countSubmission, createFlow, type Flow, flowUi, serializeFlow, updateFlow } from '../../flows/flow-store.js';
import { messages, type UiText } from '../../flows/messages.js';
import { attachMessage, clearMessages, setValue, withMessages } from '../../flows/ui-nodes.js';
import { sendVerificationCode, verificationAction } from '../../flows/verification.js';
import { verificationUi } from '../../flows/verification-ui.js';
import { stringField, submittedBody } from '../../http/body.js';
import { checkCsrf, ensureCsrf } from '../../http/cookies.js';
import { isBrowserRequest } from '../../http/negotiation.js';
import { consumeRateLimit, rateRules } from '../../http/rate-limit.js';
import { type FlowQuery, flowIdFrom, getBrowserFlow, isExpired, requestUrlOf, requireFlow, returnToFrom, sendNewFlow, withFlowParam } from './flow-helpers.js';

/** At most this many code attempts per flow; the next one replaces the flow. */
const maxCodeSubmissions = 5;

export async function verificationRoutes(app: FastifyInstance, ctx: IdentityContext) {
  const newFlow = (request: FastifyRequest, reply: FastifyReply, returnTo: string | undefined, uiMessages: UiText[] = []) =>
    createFlow(ctx.db, {
      kind: 'verification',
      state: 'choose_method',
      active: 'code',
      csrfToken: ensureCsrf(request, reply, ctx),
      requestUrl: requestUrlOf(ctx, request),
      returnTo,
      ui: (id) => withMessages(verificationUi.chooseMethod(verificationAction(ctx, id)), uiMessages),
      now: ctx.clock.now(),
    });

  /** The flow cannot go on: a fresh one carries the reason, and JSON callers get 410 with its id. */
  const replaceFlow = async (request: FastifyRequest, reply: FastifyReply, flow: Flow, reason: UiText) => {
    const replacement = await newFlow(request, reply, flow.returnTo ?? undefined, [reason]);
    if (isBrowserRequest(request)) return reply.redirect(withFlowParam(ctx.config.ui.verification, replacement.id), 303);
    throw errors.flowReplaced(replacement.id);
  };

  const answer = (request: FastifyRequest, reply: FastifyReply, flow: Flow, status = 200) =>
    isBrowserRequest(request)
      ? reply.redirect(withFlowParam(ctx.config.ui.verification, flow.id), 303)
      : reply.code(status).send(serializeFlow(flow, {}, ensureCsrf(request, reply, ctx)));

  app.get<{ Querystring: FlowQuery }>('/self-service/verification/browser', async (request, reply) => {
    const returnTo = returnToFrom(ctx, request.query.return_to);
    return sendNewFlow(request, reply, await newFlow(request, reply, returnTo), ctx.config.ui.verification);
  });

  app.get<{ Querystring: FlowQuery }>('/self-service/verification/flows', async (request, reply) =>
    serializeFlow(await getBrowserFlow(request, reply, ctx, 'verification')),
  );

  const submit = async (request: FastifyRequest<{ Querystring: FlowQuery }>, reply: FastifyReply) => {
    const flow = await requireFlow(ctx, flowIdFrom(request.query.flow), 'verification');
    const now = ctx.clock.now();
    const body = { ...submittedBody(request.body) };
    // An e-mailed link carries the code in the query: it fills the form, it does not verify.
    if (request.method === 'GET' && request.query.code) {
      const ui = { ...flowUi(flow), nodes: setValue(flowUi(flow).nodes, 'code', request.query.code.slice(0, 6)) };
      await updateFlow(ctx.db, flow, { ui }, now);
      return reply.redirect(withFlowParam(ctx.config.ui.verification, flow.id), 303);
    }
    if (isExpired(flow, now)) {
      const replacement = await newFlow(request, reply, flow.returnTo ?? undefined, [
        messages.verificationFlowExpired((now.getTime() - flow.expiresAt.getTime()) / 60_000, flow.expiresAt),
      ]);
      const target = isBrowserRequest(request)
        ? withFlowParam(ctx.config.ui.verification, replacement.id)
        : `${ctx.config.identityUrl}/self-service/verification/flows?id=${replacement.id}`;
      return reply.redirect(target, 303);
    }
    if (flow.state === 'passed_challenge') return replaceFlow(request, reply, flow, messages.alreadyCompleted(4070002));

    const code = stringField(body.code);
    if (code) {
      await consumeRateLimit(ctx, [rateRules.verificationIp(request.ip)]);
      if ((await countSubmission(ctx.db, flow)) > maxCodeSubmissions) {
        return replaceFlow(request, reply, flow, messages.generic('The request was submitted too often. Please request another code.'));
      }
      const check = await consumeCode(ctx.db, ctx.secret, { flowId: flow.id, kind: 'verification_code', code: code.trim(), now });
      if (check.outcome === 'used') return replaceFlow(request, reply, flow, messages.generic('The code was already used. Please request another code.'));
      if (check.outcome === 'invalid') {
        const ui = withMessages(clearMessages(flowUi(flow)), [messages.verificationCodeInvalid()]);
        return answer(request, reply, await updateFlow(ctx.db, flow, { ui }, now));
      }
      await markAddressVerified(ctx.db, check.address, now);
      const ui = verificationUi.passedChallenge(flow.returnTo ?? ctx.config.ui.afterLogin);
      return answer(request, reply, await updateFlow(ctx.db, flow, { state: 'passed_challenge', ui }, now));
    }

    const rawEmail = stringField(body.email);
    if (!rawEmail) {
      const ui = clearMessages(flowUi(flow));
      const updated = await updateFlow(ctx.db, flow, { ui: { ...ui, nodes: attachMessage(ui.nodes, 'email', messages.missingProperty('email')) } }, now);
      return answer(request, reply, updated, 400);
    }
    checkCsrf(request, ctx, body.csrf_token);
    const email = normalizeEmail(rawEmail);
    await consumeRateLimit(ctx, [rateRules.verificationIp(request.ip), rateRules.verificationAddress(email)]);
    const updated = await updateFlow(
      ctx.db,
      flow,
      { state: 'sent_email', ui: verificationUi.sentEmail(verificationAction(ctx, flow.id), email), context: { email }, submissions: 0 },
      now,
    );
    await sendVerificationCode(ctx, updated, email);
    return answer(request, reply, updated);
  };

  app.post<{ Querystring: FlowQuery }>('/self-service/verification', submit);
  app.get<{ Querystring: FlowQuery }>('/self-service/verification', submit);
}

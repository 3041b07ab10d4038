import type { IdentityContext } from '../context.js';
import { createIdentity, emailTaken, normalizeEmail, serializeIdentity } from '../domain/identities.js';
import { checkPasswordPolicy, hashPassword } from '../domain/passwords.js';
import { createSession, serializeSession } from '../domain/sessions.js';
import { stringField } from './string-field.js';
import { consumeRateLimit, rateRules } from '../domain/rate-limit.js';
import { errors } from './errors.js';
import { isExpired, minutesSinceExpiry, requireFlow } from './flow-lookup.js';
import type { FlowRequest } from './flow-request.js';
import { type Flow, flowUi, updateFlow } from './flow-store.js';
import { returnToFrom, withFlowParam } from './flow-urls.js';
import { messages, type UiText } from './messages.js';
import { failure, type Outcome, redirect } from './outcome.js';
import { createRegistrationFlow, rejectRegistration, showRegistration } from './registration-flow.js';
import { clearMessages, setValue, withMessages } from './ui-nodes.js';
import { startVerificationFor } from './verification.js';

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** GET /self-service/registration/browser: a new flow, unless the caller is signed in already. */
export async function startRegistration(ctx: IdentityContext, req: FlowRequest, input: { returnTo?: string | undefined }): Promise<Outcome> {
  const returnTo = returnToFrom(ctx, input.returnTo);
  if (await req.currentSession()) {
    if (req.json) return failure(errors.sessionAlreadyAvailable('registration'));
    return redirect(returnTo ?? ctx.config.ui.afterLogin);
  }
  return { kind: 'render', flow: await createRegistrationFlow(ctx, req, returnTo), status: 200, screen: ctx.config.ui.registration };
}

/** POST /self-service/registration?flow=: an e-mail address and a password become an identity, signed in. */
export async function submitRegistration(ctx: IdentityContext, req: FlowRequest, input: { flowId: string; body: Record<string, unknown> }): Promise<Outcome> {
  const flow = await requireFlow(ctx, input.flowId, 'registration');
  if (await req.currentSession()) {
    if (req.json) return failure(errors.sessionAlreadyAvailable('registration'));
    return redirect(flow.returnTo ?? ctx.config.ui.afterLogin, 302);
  }
  const now = ctx.clock.now();
  if (isExpired(flow, now)) {
    const replacement = await createRegistrationFlow(ctx, req, flow.returnTo ?? undefined, [
      messages.registrationFlowExpired(minutesSinceExpiry(flow, now), flow.expiresAt),
    ]);
    if (req.json) return failure(errors.flowExpired(flow.expiresAt, now, replacement.id));
    return redirect(withFlowParam(ctx.config.ui.registration, replacement.id));
  }
  if (flow.state === 'passed_challenge') {
    // Says only that the flow is done: not the address typed into it, to whoever holds its id.
    const done = clearMessages(flowUi(flow));
    return showRegistration(ctx, flow, withMessages({ ...done, nodes: setValue(done.nodes, 'traits.email', undefined) }, [messages.alreadyCompleted(4040002)]));
  }

  const { body } = input;
  const rawEmail = stringField(((body.traits ?? {}) as Record<string, unknown>).email);
  const password = stringField(body.password);
  const reject = (problems: { node?: string; message: UiText }[]) => rejectRegistration(ctx, flow, rawEmail, problems);
  if (body.method !== 'password') return reject([{ message: messages.noRegistrationStrategy() }]);
  const schemaProblems: { node: string; message: UiText }[] = [];
  if (rawEmail === undefined) schemaProblems.push({ node: 'traits.email', message: messages.missingProperty('email') });
  else if (!emailPattern.test(rawEmail.trim())) schemaProblems.push({ node: 'traits.email', message: messages.invalidEmail(rawEmail) });
  if (password === undefined) schemaProblems.push({ node: 'password', message: messages.missingProperty('password') });
  else if (password === '') schemaProblems.push({ node: 'password', message: messages.tooShort(1, 0) });
  if (schemaProblems.length) {
    ctx.metrics.registration('invalid_input');
    return reject(schemaProblems);
  }
  req.checkCsrf(body.csrf_token);

  const email = normalizeEmail(rawEmail ?? '');
  await consumeRateLimit(ctx, [rateRules.registrationIp(req.ip)]);
  const policyProblem = checkPasswordPolicy(password ?? '', email);
  if (policyProblem) {
    ctx.metrics.registration('weak_password');
    return reject([{ node: 'password', message: policyProblem }]);
  }
  const duplicate = () => {
    ctx.metrics.registration('duplicate_identifier');
    return reject([{ message: messages.duplicateIdentifier() }]);
  };
  if (await emailTaken(ctx.db, email)) return duplicate();
  let identityId: string;
  try {
    identityId = (await createIdentity(ctx.db, { email, hashedPassword: await hashPassword(password ?? ''), now })).id;
  } catch (error) {
    // Two registrations for one address at once: the unique index lets one through.
    if (await emailTaken(ctx.db, email)) return duplicate();
    throw error;
  }
  ctx.metrics.registration('success');
  return completeRegistration(ctx, req, flow, identityId, email);
}

/** The new identity is signed in, and a verification flow has mailed its address a code. */
async function completeRegistration(ctx: IdentityContext, req: FlowRequest, flow: Flow, identityId: string, email: string): Promise<Outcome> {
  const now = ctx.clock.now();
  const csrfToken = req.cookies.ensureCsrf();
  const verification = await startVerificationFor(ctx, { email, csrfToken, requestUrl: req.url, returnTo: flow.returnTo ?? undefined });
  const { session, token } = await createSession(ctx.db, {
    identityId,
    aal: 'aal1',
    methods: [{ method: 'password', aal: 'aal1', completed_at: now.toISOString() }],
    device: { ip_address: req.ip, user_agent: req.userAgent, location: '' },
    now,
  });
  req.cookies.setSession(token, session.expiresAt);
  await updateFlow(ctx.db, flow, { state: 'passed_challenge', ui: clearMessages(flowUi(flow)) }, now);
  const verificationUrl = withFlowParam(ctx.config.ui.verification, verification.id);
  return {
    kind: 'success',
    redirectTo: verificationUrl,
    body: async () => ({
      identity: await serializeIdentity(ctx.db, identityId, ctx.config.identityUrl),
      session: await serializeSession(ctx.db, session, ctx.config.identityUrl),
      continue_with: [
        { action: 'redirect_browser_to', redirect_browser_to: flow.returnTo ?? ctx.config.ui.afterLogin },
        { action: 'show_verification_ui', flow: { id: verification.id, verifiable_address: email, url: verificationUrl } },
      ],
    }),
  };
}

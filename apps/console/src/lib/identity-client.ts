// The console's door to the identity service (spec §4, §7, §8), over the official SDK. Every
// function answers with the outcome the spec names; the wrapper errors of §8 are thrown only
// where the spec says so (a flow that could not even be created, logout, a missing flow id).
import { isEmailVerified } from '@meterway/contracts';
import type { Session } from '@ory/client-fetch';
import { createFlow, failureMessages, flowFailureMessages, identityApi, identityBase, identityTexts } from './identity-api';
import {
  continueWith,
  csrfToken,
  errorId,
  type FlowLike,
  hasMessageId,
  type IdentityFailure,
  isFlowBody,
  isFlowError,
  matchesMessage,
  readFailure,
  redirectBrowserTo,
  stringOrUndefined,
} from './identity-flow';
import { logger } from './logger';
import { secondFactorRedirect } from './second-factor';

export { identityApi, identityTexts } from './identity-api';
export { flowMessages } from './identity-flow';

export type Credentials = { email: string; password: string };

export type LoginResult =
  | { type: 'Success' }
  | { type: 'Failure'; messages: string[] }
  /** Spec §4: goes to verify-email. `flowId` is the verification flow identity already mailed a code for, if it said. */
  | { type: 'EmailNotVerified'; email: string; flowId?: string }
  /** The password was right but a second factor is needed; the browser goes to `redirectTo`. */
  | { type: 'SecondFactorRequired'; redirectTo: string }
  /**
   * Failed sign-ins from other browsers capped the address (issue #53): identity mailed it a code,
   * which the password just sent is judged with (loginWithCode); `flowId` and `csrfToken` are the flow's.
   */
  | { type: 'CodeSent'; email: string; flowId: string; csrfToken: string };

export type RegistrationResult = { type: 'Success'; flowId: string } | { type: 'Failure'; messages: string[] };

export type RecoveryResult =
  /** `redirectTo`: the settings page a completed code recovery continues at. */
  { type: 'Success'; flowId: string; redirectTo?: string } | { type: 'Failure'; messages: string[] } | { type: 'UserNotFound' };

export type VerificationResult = { type: 'Success' } | { type: 'Failure'; messages: string[] };

export type PasswordChangeResult = { type: 'Success' } | { type: 'Failure'; messages: string[] } | { type: 'WeakPassword'; messages: string[] };

export type SessionState = 'logged-out' | 'email-not-verified' | 'logged-in';

/**
 * Spec §4 and identity-protocol.md §7.4: an unverified address at login answers 403
 * `session_verified_address_required` (current Kratos), or a 400 flow carrying 4000010 (legacy).
 */
function emailNotVerified(failure: IdentityFailure, email: string): LoginResult | undefined {
  if (failure.kind !== 'response') return undefined;
  const { status, body } = failure;
  if (status === 403 && errorId(body) === 'session_verified_address_required') {
    const flow = continueWith(body, 'show_verification_ui')?.flow;
    const flowId = stringOrUndefined(flow?.id);
    return { type: 'EmailNotVerified', email: stringOrUndefined(flow?.verifiable_address) ?? email, ...(flowId ? { flowId } : {}) };
  }
  if (status === 400 && isFlowBody(body) && hasMessageId(body, 4000010)) return { type: 'EmailNotVerified', email };
  return undefined;
}

/**
 * A flow's creation refused with 400 session_already_available (identity-protocol.md §2): the
 * browser has a session, complete or waiting for its second factor. The error is the §8 wrapper
 * createFlow throws, whose cause is identity's answer.
 */
export async function isSessionAlreadyAvailable(error: unknown): Promise<boolean> {
  const failure = await readFailure(error instanceof Error ? error.cause : error);
  return failure.kind === 'response' && failure.status === 400 && errorId(failure.body) === 'session_already_available';
}

export async function login({ email, password }: Credentials): Promise<LoginResult> {
  const flow = await createFlow((api) => api.createBrowserLoginFlow(), identityTexts.createLoginFlowFailed);
  try {
    await identityApi().updateLoginFlow({
      flow: flow.id,
      updateLoginFlowBody: { method: 'password', identifier: email, password, csrf_token: csrfToken(flow) },
    });
    return { type: 'Success' };
  } catch (error) {
    const failure = await readFailure(error);
    return passedDespite(failure, email) ?? loginCodeSent(failure, email) ?? { type: 'Failure', messages: failureMessages(failure, 'login') };
  }
}

/** A refused login that still got somewhere: to verify-email, or to the second factor. */
function passedDespite(failure: IdentityFailure, email: string): LoginResult | undefined {
  const unverified = emailNotVerified(failure, email);
  if (unverified) return unverified;
  // 422 browser_location_change_required: the aal1 cookie is set, a second factor is pending (§5.2).
  const redirectTo = failure.kind === 'response' && failure.status === 422 ? redirectBrowserTo(failure.body) : undefined;
  return redirectTo ? { type: 'SecondFactorRequired', redirectTo } : undefined;
}

/** A 400 login flow in `sent_email`: identity asks for the code it mailed (identity-protocol.md's 1010014). */
function loginCodeSent(failure: IdentityFailure, email: string): LoginResult | undefined {
  if (failure.kind !== 'response' || failure.status !== 400 || !isFlowBody(failure.body)) return undefined;
  const flow = failure.body as FlowLike & { id?: unknown; state?: unknown };
  if (flow.state !== 'sent_email' || typeof flow.id !== 'string') return undefined;
  return { type: 'CodeSent', email, flowId: flow.id, csrfToken: csrfToken(flow) };
}

/** The mailed code on the flow login() left in `sent_email`: signed in, or why not. */
export async function loginWithCode({
  email,
  flowId,
  csrfToken: csrf,
  code,
}: {
  email: string;
  flowId: string;
  csrfToken: string;
  code: string;
}): Promise<LoginResult> {
  try {
    await identityApi().updateLoginFlow({ flow: flowId, updateLoginFlowBody: { method: 'code', code, identifier: email, csrf_token: csrf } });
    return { type: 'Success' };
  } catch (error) {
    const failure = await readFailure(error);
    return passedDespite(failure, email) ?? { type: 'Failure', messages: failureMessages(failure, 'login') };
  }
}

export async function register({ email, password }: Credentials): Promise<RegistrationResult> {
  const flow = await createFlow((api) => api.createBrowserRegistrationFlow(), identityTexts.createRegistrationFlowFailed);
  try {
    const result = await identityApi().updateRegistrationFlow({
      flow: flow.id,
      updateRegistrationFlowBody: { method: 'password', traits: { email }, password, csrf_token: csrfToken(flow) },
    });
    // The verification flow identity already mailed the code for (§6.2, show_verification_ui).
    const flowId = stringOrUndefined(continueWith(result, 'show_verification_ui')?.flow?.id);
    return flowId ? { type: 'Success', flowId } : { type: 'Failure', messages: [identityTexts.noVerificationFlow] };
  } catch (error) {
    return { type: 'Failure', messages: failureMessages(await readFailure(error), 'registration') };
  }
}

/** 4000037 "This account does not exist…": the only way identity may say an address is unknown. */
const isUserNotFound = (flow: FlowLike): boolean => hasMessageId(flow, 4000037);

/** A recovery answer (200 or 400 flow) → the spec's outcome (§4: no error message means success). */
function recoveryOutcome(status: number, flow: FlowLike, flowId: string): RecoveryResult {
  if (isUserNotFound(flow)) return { type: 'UserNotFound' };
  if (status >= 400 || isFlowError(flow)) return { type: 'Failure', messages: flowFailureMessages(flow) };
  // With use_continue_with_transitions a correct code answers 200 + show_settings_ui (§8).
  const redirectTo = stringOrUndefined(continueWith(flow, 'show_settings_ui')?.flow?.url);
  return { type: 'Success', flowId, ...(redirectTo ? { redirectTo } : {}) };
}

async function sendRecovery(method: 'link' | 'code', email: string): Promise<RecoveryResult> {
  const flow = await createFlow((api) => api.createBrowserRecoveryFlow(), identityTexts.createRecoveryFlowFailed);
  try {
    const updated = await identityApi().updateRecoveryFlow({
      flow: flow.id,
      updateRecoveryFlowBody: { method, email, csrf_token: csrfToken(flow) },
    });
    return recoveryOutcome(200, updated, flow.id);
  } catch (error) {
    const failure = await readFailure(error);
    if (failure.kind === 'response' && isFlowBody(failure.body)) return recoveryOutcome(failure.status, failure.body, flow.id);
    return { type: 'Failure', messages: failureMessages(failure, 'recovery') };
  }
}

/** Sends the recovery link (spec §2 Recover). Identity answers the same for unknown addresses. */
export const recoverByLink = (email: string): Promise<RecoveryResult> => sendRecovery('link', email);

/** Sends a recovery code; the code is then entered with `recoverByCode(flowId, code)`. */
export const sendRecoveryCode = (email: string): Promise<RecoveryResult> => sendRecovery('code', email);

/**
 * Completes a recovery with the e-mailed code. Success when the answer has no error message, or
 * when identity answers 422 (browser_location_change_required): the privileged session is set and
 * `redirectTo` is the settings page where the new password is chosen (identity-protocol.md §8).
 */
export async function recoverByCode(flowId: string | null | undefined, code: string): Promise<RecoveryResult> {
  if (!flowId) throw new Error(identityTexts.noFlowId);
  let csrf = '';
  try {
    csrf = csrfToken(await identityApi().getRecoveryFlow({ id: flowId }));
  } catch (error) {
    // The submit below reports what is wrong with the flow; this only fetched its token.
    logger.warn('identity getRecoveryFlow failed', await readFailure(error));
  }
  try {
    const updated = await identityApi().updateRecoveryFlow({
      flow: flowId,
      updateRecoveryFlowBody: { method: 'code', code, csrf_token: csrf },
    });
    return recoveryOutcome(200, updated, flowId);
  } catch (error) {
    const failure = await readFailure(error);
    if (failure.kind === 'response' && failure.status === 422) {
      const redirectTo = redirectBrowserTo(failure.body);
      return { type: 'Success', flowId, ...(redirectTo ? { redirectTo } : {}) };
    }
    if (failure.kind === 'response' && isFlowBody(failure.body)) return recoveryOutcome(failure.status, failure.body, flowId);
    return { type: 'Failure', messages: failureMessages(failure, 'recovery') };
  }
}

/**
 * Creates a verification flow and has identity mail a code to `email` (spec §7); the flow id is
 * what verify-email carries as `flowId`. Throws when no code could be sent.
 */
export async function sendVerificationCode(email: string): Promise<{ flowId: string }> {
  const flow = await createFlow((api) => api.createBrowserVerificationFlow(), identityTexts.createVerificationFlowFailed);
  try {
    await identityApi().updateVerificationFlow({
      flow: flow.id,
      updateVerificationFlowBody: { method: 'code', email, csrf_token: csrfToken(flow) },
    });
    return { flowId: flow.id };
  } catch (error) {
    const messages = failureMessages(await readFailure(error), 'verification');
    throw new Error(messages.join('\n'), { cause: error });
  }
}

/** Submits the 6-character code (spec §2 Verify-email). A wrong code answers 200 with an error message (§16.2). */
export async function verify(flowId: string | null | undefined, code: string): Promise<VerificationResult> {
  if (!flowId) throw new Error(identityTexts.noFlowId);
  let csrf = '';
  try {
    csrf = csrfToken(await identityApi().getVerificationFlow({ id: flowId }));
  } catch (error) {
    // Code submissions are not CSRF-checked (§3.3): a code opened on another device still works.
    logger.warn('identity getVerificationFlow failed', await readFailure(error));
  }
  try {
    const flow = await identityApi().updateVerificationFlow({
      flow: flowId,
      updateVerificationFlowBody: { method: 'code', code, csrf_token: csrf },
    });
    if (!isFlowError(flow) && flow.state === 'passed_challenge') return { type: 'Success' };
    return { type: 'Failure', messages: flowFailureMessages(flow) };
  } catch (error) {
    return { type: 'Failure', messages: failureMessages(await readFailure(error), 'verification') };
  }
}

/** Kratos' 4000034: a breached password. Its text does not start like the others, but it is just as unusable. */
const breachedPassword = 4000034;

/** Spec §4/§5: WeakPassword when a message contains 'The password can not be used', or names a breached password. */
function passwordOutcome(flow: FlowLike): PasswordChangeResult {
  const messages = flowFailureMessages(flow);
  const weak = matchesMessage(flow, identityTexts.weakPassword) || hasMessageId(flow, breachedPassword);
  return weak ? { type: 'WeakPassword', messages } : { type: 'Failure', messages };
}

export async function changePassword(password: string): Promise<PasswordChangeResult> {
  const flow = await createFlow((api) => api.createBrowserSettingsFlow(), identityTexts.createSettingsFlowFailed);
  try {
    const updated = await identityApi().updateSettingsFlow({
      flow: flow.id,
      updateSettingsFlowBody: { method: 'password', password, csrf_token: csrfToken(flow) },
    });
    return isFlowError(updated) ? passwordOutcome(updated) : { type: 'Success' };
  } catch (error) {
    const failure = await readFailure(error);
    if (failure.kind === 'response' && isFlowBody(failure.body)) return passwordOutcome(failure.body);
    return { type: 'Failure', messages: failureMessages(failure, 'settings') };
  }
}

/**
 * Spec §2 Settings: a browser settings flow, then identity's own page for it. `anchor` 'totp'
 * opens the multi-factor part. Throws 'Failed to create settings flow'.
 */
export async function createSettingsUrl(anchor?: 'totp'): Promise<string> {
  let id: string;
  try {
    ({ id } = await createFlow((api) => api.createBrowserSettingsFlow(), identityTexts.createSettingsFlowFailed));
  } catch (error) {
    throw new Error(identityTexts.settingsFlowFailed, { cause: error });
  }
  return `${identityBase()}/ui/settings?flow=${encodeURIComponent(id)}${anchor ? `#${anchor}` : ''}`;
}

/** Spec §7 Logout: a logout flow, then its token; afterwards the caller goes to /login. */
export async function logout(): Promise<void> {
  const { logout_token: token } = await createFlow((api) => api.createBrowserLogoutFlow(), identityTexts.createLogoutFlowFailed);
  try {
    await identityApi().updateLogoutFlow({ token });
  } catch (error) {
    logger.warn(identityTexts.logoutFailed, await readFailure(error));
    throw new Error(identityTexts.logoutFailed, { cause: error });
  }
}

/** What identity says of the visitor: signed in or not, or a password given with the second factor still due. */
export type SessionStatus =
  | { state: 'logged-out' }
  | { state: 'logged-in' | 'email-not-verified'; session: Session }
  /** An aal1 session that needs aal2: the browser finishes signing in at `redirectTo` (whoami's redirect_browser_to). */
  | { state: 'second-factor-required'; redirectTo: string };

/**
 * Asks whoami. Its 401 has no error id (§11.2), so the status decides; a 403
 * session_aal2_required is a pending second factor (§10). Anything else throws.
 */
export async function sessionStatus(): Promise<SessionStatus> {
  try {
    const session = await identityApi().toSession();
    const state = sessionStateOf(session);
    return state === 'logged-out' ? { state } : { state, session };
  } catch (error) {
    const failure = await readFailure(error);
    if (failure.kind === 'response' && failure.status === 401) return { state: 'logged-out' };
    const redirectTo = failure.kind === 'response' && failure.status === 403 ? secondFactorRedirect(failure.body) : undefined;
    if (redirectTo) return { state: 'second-factor-required', redirectTo };
    logger.warn('identity toSession failed', failure);
    throw new Error('ory.toSession failed', { cause: error });
  }
}

/** Spec §4 auth state: verified means the address equal to the e-mail trait is verified. */
export function sessionStateOf(session: Pick<Session, 'identity'> | null): SessionState {
  if (!session?.identity) return 'logged-out';
  return isEmailVerified(session.identity) ? 'logged-in' : 'email-not-verified';
}

import { type LoginFlow, LoginFlowFromJSON, type UpdateLoginFlowBody } from '@ory/client-fetch';
import { type IdentityFailure, isFlowBody, readFailure, redirectBrowserTo } from '@meterway/contracts';
import { errorText } from './error-text';
import { ory } from './ory';
import { csrfToken } from './ui-nodes';

export type LoginResult = { kind: 'flow'; flow: LoginFlow } | { kind: 'navigate'; to: string } | { kind: 'failed'; message: string };

export const loginInitUrl = '/self-service/login/browser';

/** Where an expired flow restarts: a second-factor flow at identity, anything else at the console. */
const restart = (requestedAal: string | undefined, consoleUrl: string): string =>
  requestedAal === 'aal2' ? `${loginInitUrl}?aal=aal2` : `${consoleUrl}/login`;

export async function loadLoginFlow(id: string, consoleUrl: string): Promise<LoginResult> {
  try {
    return { kind: 'flow', flow: await ory.getLoginFlow({ id }) };
  } catch (error) {
    // The flow-GET 410 does not say which AAL the flow asked for, so it restarts at the console.
    return loginFailure(await readFailure(error), undefined, consoleUrl);
  }
}

export async function submitLogin(flow: LoginFlow, body: Record<string, unknown>, consoleUrl: string): Promise<LoginResult> {
  try {
    const { continue_with: continueWith = [] } = await ory.updateLoginFlow({
      flow: flow.id,
      updateLoginFlowBody: body as unknown as UpdateLoginFlowBody,
    });
    const redirect = continueWith.find((item) => item.action === 'redirect_browser_to');
    const to = redirect && 'redirect_browser_to' in redirect ? redirect.redirect_browser_to : undefined;
    return { kind: 'navigate', to: to ?? `${consoleUrl}/dashboard` };
  } catch (error) {
    return loginFailure(await readFailure(error), flow.requested_aal, consoleUrl);
  }
}

function loginFailure(failure: IdentityFailure, requestedAal: string | undefined, consoleUrl: string): LoginResult {
  if (failure.kind === 'network') return { kind: 'failed', message: errorText(failure) };
  const { status, body } = failure;
  if (status === 400 && isFlowBody(body)) return { kind: 'flow', flow: LoginFlowFromJSON(body) };
  // 422 browser_location_change_required, e.g. a second factor is still needed (§5.2).
  const redirect = redirectBrowserTo(body);
  if (status === 422 && redirect) return { kind: 'navigate', to: redirect };
  if (status === 410) return { kind: 'navigate', to: restart(requestedAal, consoleUrl) };
  // CSRF (403), unknown flow (404), no session for an aal2 flow (401): sign in again.
  if (status === 401 || status === 403 || status === 404) return { kind: 'navigate', to: `${consoleUrl}/login` };
  return { kind: 'failed', message: errorText(failure) };
}

export type ReauthResult = { kind: 'confirmed' } | { kind: 'rejected'; messages: string[] } | { kind: 'navigate'; to: string };

/**
 * Re-authentication for a settings change (§9.4), the SPA way: a refresh login flow, answered
 * with the password of the identity already signed in.
 */
export async function reauthenticate(identifier: string, password: string, consoleUrl: string): Promise<ReauthResult> {
  let flow: LoginFlow;
  try {
    flow = await ory.createBrowserLoginFlow({ refresh: true });
  } catch (error) {
    const failure = await readFailure(error);
    if (failure.kind === 'response' && failure.status === 401) return { kind: 'navigate', to: `${consoleUrl}/login` };
    return { kind: 'rejected', messages: [errorText(failure)] };
  }
  const body = { method: 'password', identifier, password, csrf_token: csrfToken(flow.ui.nodes) };
  try {
    // 200 continues with a redirect that is not followed: the pending change is re-submitted instead.
    await ory.updateLoginFlow({ flow: flow.id, updateLoginFlowBody: body as UpdateLoginFlowBody });
    return { kind: 'confirmed' };
  } catch (error) {
    const result = loginFailure(await readFailure(error), flow.requested_aal, consoleUrl);
    if (result.kind === 'flow') return { kind: 'rejected', messages: flowErrors(result.flow) };
    if (result.kind === 'failed') return { kind: 'rejected', messages: [result.message] };
    return result;
  }
}

/** Every error text of a re-rendered flow, top-level and per field. */
function flowErrors(flow: LoginFlow): string[] {
  const all = [...(flow.ui.messages ?? []), ...flow.ui.nodes.flatMap((node) => node.messages)];
  const errors = all.filter((message) => message.type === 'error').map((message) => message.text);
  return errors.length ? errors : ['Your password could not be confirmed. Please try again.'];
}

/** The way out of a half-finished sign-in: end the session, then the console's login. */
export async function logoutUrl(consoleUrl: string): Promise<string> {
  try {
    const { logout_url: url } = await ory.createBrowserLogoutFlow({ returnTo: `${consoleUrl}/login` });
    return url;
  } catch {
    // No session (401) or no answer: there is nothing to end.
    return `${consoleUrl}/login`;
  }
}

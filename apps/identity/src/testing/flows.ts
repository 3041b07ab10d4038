import type { FrontendApi } from '@ory/client-fetch';
import { generate } from 'otplib';

type NodeLike = { attributes: unknown };

/** The masked CSRF token a flow carries in its csrf_token node. */
export const csrfOf = (flow: { ui: { nodes: NodeLike[] } }) =>
  String(flow.ui.nodes.map((node) => node.attributes as { name?: string; value?: unknown }).find((attributes) => attributes.name === 'csrf_token')?.value);

export const testPassword = 'a long and unusual passphrase 42';

/** Signs up through the SDK (registration logs the browser in) and returns the verification flow id. */
export async function signUp(api: FrontendApi, email: string, password = testPassword): Promise<string> {
  const flow = await api.createBrowserRegistrationFlow();
  const registered = await api.updateRegistrationFlow({
    flow: flow.id,
    updateRegistrationFlowBody: { method: 'password', traits: { email }, password, csrf_token: csrfOf(flow) },
  });
  const item = registered.continue_with?.find((entry) => entry.action === 'show_verification_ui') as { flow: { id: string } } | undefined;
  if (!item) throw new Error('registration returned no verification flow');
  return item.flow.id;
}

export async function logIn(api: FrontendApi, email: string, password = testPassword) {
  const flow = await api.createBrowserLoginFlow();
  return api.updateLoginFlow({ flow: flow.id, updateLoginFlowBody: { method: 'password', identifier: email, password, csrf_token: csrfOf(flow) } });
}

export async function logOut(api: FrontendApi) {
  const { logout_token } = await api.createBrowserLogoutFlow();
  await api.updateLogoutFlow({ token: logout_token });
}

/**
 * The authenticator's code for the next 30-second step. Identity takes each step's code once, so a
 * test that enrolled with the current code signs in with this one (within the server's ±30 s).
 */
export const nextTotpCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

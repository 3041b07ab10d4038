import type { SettingsFlow } from '@ory/client-fetch';
import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import { csrfOf, logOut, nextTotpCode, signUp, testPassword } from '../testing/flows.js';
import { failure, setupIdentityServer, uniqueEmail } from '../testing/identity-server.js';
import { codeIn } from '../testing/mail-catcher.js';

// Settings need the second factor when the identity has one (Kratos' required_aal
// highest_available); the person is sent to it and, once the code is given, back to settings.

const t = setupIdentityServer();
type Browser = ReturnType<typeof t.browser>;

const secondFactorLogin = (returnTo?: string) =>
  `${t.baseUrl}/self-service/login/browser?aal=aal2${returnTo ? `&return_to=${encodeURIComponent(returnTo)}` : ''}`;

const totpSecretOf = (flow: SettingsFlow) =>
  (flow.ui.nodes.find((node) => (node.attributes as { id?: string }).id === 'totp_secret_key')?.attributes as { text: { context: { secret: string } } }).text
    .context.secret;

/** Signs up in `browser` and links TOTP; answers the authenticator's secret. */
async function signUpWithTotp(browser: Browser, email: string): Promise<string> {
  await signUp(browser.api, email);
  const flow = await browser.api.createBrowserSettingsFlow();
  const secret = totpSecretOf(flow);
  await browser.api.updateSettingsFlow({
    flow: flow.id,
    updateSettingsFlowBody: { method: 'totp', totp_code: await generate({ secret }), csrf_token: csrfOf(flow) },
  });
  return secret;
}

/** A browser navigation: no `Accept: application/json`, and the redirect is not followed. */
const navigate = (browser: Browser, url: string) => fetch(url, { redirect: 'manual', headers: { cookie: browser.jar.header() } });

describe('settings with an aal1 session of an identity that has TOTP', () => {
  it('sends a browser (303) and a JSON client (403 session_aal2_required) to the second factor, which leads back to settings', async () => {
    const browser = t.browser();
    const email = uniqueEmail('settings-aal2');
    const secret = await signUpWithTotp(browser, email);
    await logOut(browser.api);
    const login = await browser.api.createBrowserLoginFlow();
    const pending = await failure(
      browser.api.updateLoginFlow({
        flow: login.id,
        updateLoginFlowBody: { method: 'password', identifier: email, password: testPassword, csrf_token: csrfOf(login) },
      }),
    );
    expect(pending.status).toBe(422);

    // As Kratos does, the login comes back to the settings request only when it names a return_to.
    const bare = await navigate(browser, `${t.baseUrl}/self-service/settings/browser`);
    expect(bare.status).toBe(303);
    expect(bare.headers.get('location')).toBe(secondFactorLogin());

    const returnTo = 'http://127.0.0.1:3999/dashboard';
    const settingsRequest = `${t.baseUrl}/self-service/settings/browser?return_to=${encodeURIComponent(returnTo)}`;
    const redirected = await navigate(browser, settingsRequest);
    expect(redirected.status).toBe(303);
    const location = redirected.headers.get('location') ?? '';
    expect(location).toBe(secondFactorLogin(settingsRequest));

    const refused = await failure(browser.api.createBrowserSettingsFlow({ returnTo }));
    expect(refused.status).toBe(403);
    expect(refused.body.error.id).toBe('session_aal2_required');
    expect(refused.body.redirect_browser_to).toBe(location);
    expect(refused.body.error.details.redirect_browser_to).toBe(location);

    // The browser follows to the second-factor page and submits the code as a form.
    const shown = await browser.fetch(location);
    const loginFlow = await browser.api.getLoginFlow({ id: new URL(shown.url).searchParams.get('flow') ?? '' });
    expect(loginFlow.requested_aal).toBe('aal2');
    const landed = await browser.fetch(`${t.baseUrl}/self-service/login?flow=${loginFlow.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ method: 'totp', totp_code: await nextTotpCode(secret), csrf_token: csrfOf(loginFlow) }),
    });
    const landedUrl = new URL(landed.url);
    expect(`${landedUrl.origin}${landedUrl.pathname}`).toBe(`${t.baseUrl}/ui/settings`);
    const settings = await browser.api.getSettingsFlow({ id: landedUrl.searchParams.get('flow') ?? '' });
    expect(settings.return_to).toBe(returnTo);
    expect((await browser.api.toSession()).authenticator_assurance_level).toBe('aal2');
  });

  it('after a recovery by code: fetching the settings flow sends to the second factor with return_to = that flow on the settings UI', async () => {
    const email = uniqueEmail('recover-aal2');
    const secret = await signUpWithTotp(t.browser(), email);
    const { api } = t.browser();
    const recovery = await api.createBrowserRecoveryFlow();
    const sent = await api.updateRecoveryFlow({ flow: recovery.id, updateRecoveryFlowBody: { method: 'code', email, csrf_token: csrfOf(recovery) } });
    const code = codeIn(await t.mail.waitForMail(email, 2));
    const recovered = await failure(api.updateRecoveryFlow({ flow: recovery.id, updateRecoveryFlowBody: { method: 'code', code, csrf_token: csrfOf(sent) } }));
    const settingsUrl = recovered.body.redirect_browser_to as string;
    const settingsFlowId = new URL(settingsUrl).searchParams.get('flow') ?? '';
    expect(settingsUrl).toBe(`${t.baseUrl}/ui/settings?flow=${settingsFlowId}`);

    const refused = await failure(api.getSettingsFlow({ id: settingsFlowId }));
    expect(refused.status).toBe(403);
    expect(refused.body.error.id).toBe('session_aal2_required');
    expect(refused.body.redirect_browser_to).toBe(secondFactorLogin(settingsUrl));

    // As an SPA (Ory Elements) does it: the aal2 login flow from that URL, then the code.
    const loginFlow = await api.createBrowserLoginFlow({
      aal: 'aal2',
      returnTo: new URL(refused.body.redirect_browser_to).searchParams.get('return_to') ?? '',
    });
    const upgraded = await api.updateLoginFlow({
      flow: loginFlow.id,
      updateLoginFlowBody: { method: 'totp', totp_code: await nextTotpCode(secret), csrf_token: csrfOf(loginFlow) },
    });
    expect(upgraded.continue_with).toEqual([{ action: 'redirect_browser_to', redirect_browser_to: settingsUrl }]);
    const settings = await api.getSettingsFlow({ id: settingsFlowId });
    expect(settings.ui.messages?.[0]).toMatchObject({ id: 1060001, type: 'success' });
  });
});

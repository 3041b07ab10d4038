import { describe, expect, inject, it } from 'vitest';
import { callIdentity, csrfOf, enrolTotpOnSettingsPage, signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

describe('identity hosted pages in Chromium', () => {
  it('changes the password and enrols TOTP on /ui/settings; the next login needs the second factor', async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    const email = `e2e-${Date.now()}@example.com`;
    const firstPassword = 'first long passphrase for e2e';
    const secondPassword = 'second long passphrase for e2e';

    await signUp(context, email, { password: firstPassword, verify: false });

    // Settings: the browser is sent through the flow init and lands on the hosted page.
    await page.goto(`${stack.identityUrl}/ui/settings`);
    await page.waitForURL(/\/ui\/settings\?flow=/);
    const passwordCard = page.getByTestId('ory/screen/settings/group/password');
    await passwordCard.getByRole('textbox', { name: 'Password' }).fill(secondPassword);
    await passwordCard.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => passwordCard.getByText('Your changes have been saved!').isVisible()).toBe(true);

    const authenticator = await enrolTotpOnSettingsPage(page);
    expect((await callIdentity(context.request, 'GET', '/sessions/whoami')).body.authenticator_assurance_level).toBe('aal2');

    // Log out, then log in with the new password: the second factor is required.
    const logout = await callIdentity(context.request, 'GET', '/self-service/logout/browser');
    expect((await callIdentity(context.request, 'GET', `/self-service/logout?token=${logout.body.logout_token}`)).status).toBe(204);
    const login = await callIdentity(context.request, 'GET', '/self-service/login/browser');
    const old = await callIdentity(context.request, 'POST', `/self-service/login?flow=${login.body.id}`, {
      method: 'password',
      identifier: email,
      password: firstPassword,
      csrf_token: csrfOf(login.body),
    });
    expect(old.status).toBe(400);
    const pending = await callIdentity(context.request, 'POST', `/self-service/login?flow=${login.body.id}`, {
      method: 'password',
      identifier: email,
      password: secondPassword,
      csrf_token: csrfOf(login.body),
    });
    expect(pending.status).toBe(422);
    expect((await callIdentity(context.request, 'GET', '/sessions/whoami')).body.error.id).toBe('session_aal2_required');

    await page.goto(pending.body.redirect_browser_to);
    await page.waitForURL(/\/ui\/login\?flow=/);
    await page.getByLabel('Authentication code').fill(await authenticator.code());
    await page.getByRole('button', { name: 'Use Authenticator' }).click();
    await page.waitForURL(new RegExp(`^${stack.consoleUrl}/`));
    const whoami = await callIdentity(context.request, 'GET', '/sessions/whoami');
    expect(whoami.body.authenticator_assurance_level).toBe('aal2');
    expect(whoami.body.identity.traits.email).toBe(email);
    await context.close();
  });
});

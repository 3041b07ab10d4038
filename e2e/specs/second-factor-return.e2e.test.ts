import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { callIdentity, enrolTotpOnSettingsPage, signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

// Issue #16: a person who gave the password but left identity's second-factor page used to be
// sent to /login, where every Login only said 'ory.createBrowserLoginFlow failed'. The console
// now sends such a visitor back to the second-factor step from any screen.

const stack = inject('stack');
const chromium = useBrowser();

const secondFactorPage = new RegExp(`^${stack.identityUrl}/ui/login\\?flow=`);

/** Enrols TOTP on identity's settings page; answers the authenticator app. */
async function enrolTotp(page: Page) {
  await page.goto(`${stack.identityUrl}/ui/settings`);
  await page.waitForURL(/\/ui\/settings\?flow=/);
  return enrolTotpOnSettingsPage(page);
}

async function logOut(context: BrowserContext) {
  const logout = await callIdentity(context.request, 'GET', '/self-service/logout/browser');
  expect((await callIdentity(context.request, 'GET', `/self-service/logout?token=${logout.body.logout_token}`)).status).toBe(204);
}

async function logInOnConsole(page: Page, email: string, password: string) {
  await page.goto(`${stack.consoleUrl}/login`);
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
}

describe('a second factor left half-way (Chromium, the real stack)', () => {
  it('brings the person back to the second-factor step from the dashboard and from /login, and the code signs them in', async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    const { email, password } = await signUp(context, `e2e-2fa-return-${Date.now()}@example.com`);
    const authenticator = await enrolTotp(page);
    await logOut(context);

    await logInOnConsole(page, email, password);
    await page.waitForURL(secondFactorPage);
    expect((await callIdentity(context.request, 'GET', '/sessions/whoami')).body.error.id).toBe('session_aal2_required');

    // They leave the second-factor page and come back to the console.
    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.waitForURL(secondFactorPage);

    await page.goto(`${stack.consoleUrl}/login`);
    await page.waitForURL(secondFactorPage);
    expect(await page.getByText('Wooops!').count()).toBe(0);

    await page.getByLabel('Authentication code').fill(await authenticator.code());
    await page.getByRole('button', { name: 'Use Authenticator' }).click();
    await page.waitForURL(`${stack.consoleUrl}/dashboard`);
    await page.getByRole('button', { name: 'Account menu' }).waitFor();
    const whoami = await callIdentity(context.request, 'GET', '/sessions/whoami');
    expect(whoami.body.authenticator_assurance_level).toBe('aal2');
    expect(whoami.body.identity.traits.email).toBe(email);
    await context.close();
  });

  it('comes back to the screen that was asked for once the code is given', async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    const { email, password } = await signUp(context, `e2e-2fa-screen-${Date.now()}@example.com`);
    const authenticator = await enrolTotp(page);
    await logOut(context);
    await logInOnConsole(page, email, password);
    await page.waitForURL(secondFactorPage);

    await page.goto(`${stack.consoleUrl}/add-credits`);
    await page.waitForURL(secondFactorPage);
    await page.getByLabel('Authentication code').fill(await authenticator.code());
    await page.getByRole('button', { name: 'Use Authenticator' }).click();
    await page.waitForURL(`${stack.consoleUrl}/add-credits`);
    await context.close();
  });

  it('sends a signed-in person without a second factor from /login to the dashboard', async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    await signUp(context, `e2e-2fa-none-${Date.now()}@example.com`);

    await page.goto(`${stack.consoleUrl}/login`);
    await page.waitForURL(`${stack.consoleUrl}/dashboard`);
    await page.getByRole('button', { name: 'Account menu' }).waitFor();
    await context.close();
  });
});

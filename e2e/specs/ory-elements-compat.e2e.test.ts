import type { Server } from 'node:http';
import { freePort } from '@meterway/service';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildElementsApp, serveElementsApp } from '../ory-elements-app/serve.js';
import { authenticatorApp } from '../support/authenticator.js';
import { useBrowser } from '../support/browser.js';
import { type Stack, startStack } from '../support/stack.js';

/*
 * Ory's own UI components (@ory/elements-react), in an app of their own on another origin, pointed
 * at our identity as if it were Kratos: the identity's configured UI URLs send every flow there.
 */
const chromium = useBrowser();
let appUrl = '';
let stack: Stack | undefined;
let server: Server | undefined;

beforeAll(async () => {
  const appPort = await freePort();
  appUrl = `http://localhost:${appPort}`;
  await buildElementsApp();
  stack = await startStack({
    env: {
      IDENTITY_LOGIN_UI_URL: `${appUrl}/login`,
      IDENTITY_REGISTRATION_UI_URL: `${appUrl}/registration`,
      IDENTITY_VERIFICATION_UI_URL: `${appUrl}/verification`,
      IDENTITY_RECOVERY_UI_URL: `${appUrl}/recovery`,
      IDENTITY_SETTINGS_UI_URL: `${appUrl}/settings`,
      IDENTITY_DEFAULT_RETURN_URL: `${appUrl}/`,
    },
  });
  server = await serveElementsApp(appPort, stack.identityUrl);
});

afterAll(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await stack?.stop();
});

const identityUrl = () => stack?.identityUrl ?? '';

/** The newest `template` mail the identity's dev outbox holds for `email`, waiting for it to arrive. */
async function codeFor(email: string, template: 'verification_code' | 'recovery_code'): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await fetch(`${identityUrl()}/dev/outbox?to=${encodeURIComponent(email)}`);
    const { messages } = (await response.json()) as { messages: { template: string; code?: string }[] };
    const code = messages.filter((mail) => mail.template === template).at(-1)?.code;
    if (code) return code;
    if (Date.now() > deadline) throw new Error(`no ${template} mail for ${email}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Waits until the page shows `path` with a flow (or the home page), and checks it is the app's, not the identity's. */
async function inApp(page: Page, path: string) {
  await page.waitForURL((url) => url.origin === appUrl && url.pathname === path && (path === '/' || url.searchParams.has('flow')));
  expect(new URL(page.url()).origin).toBe(appUrl);
}

async function home(page: Page) {
  await inApp(page, '/');
  const aal = page.getByTestId('session-aal');
  await aal.waitFor();
  return { email: await page.getByTestId('session-email').textContent(), aal: await aal.textContent() };
}

async function logOut(page: Page) {
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByText('Not signed in').waitFor();
  await inApp(page, '/');
}

async function logInWithPassword(page: Page, email: string, password: string) {
  await page.goto(`${appUrl}/login`);
  await inApp(page, '/login');
  await page.getByRole('textbox', { name: 'E-Mail' }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in with password' }).click();
}

async function secondFactor(page: Page, authenticator: ReturnType<typeof authenticatorApp>) {
  await inApp(page, '/login');
  await page.getByText('Second factor authentication').waitFor();
  await page.getByRole('textbox', { name: 'Authentication code' }).fill(await authenticator.code());
  await page.getByRole('button', { name: 'Continue' }).click();
}

describe('an app built on @ory/elements-react against the identity', () => {
  it('signs up, verifies, logs in with TOTP, refreshes, recovers and saves settings, all inside the app', async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    const email = `elements-${Date.now()}@example.com`;
    const password = 'a long and unusual passphrase 42';
    const newPassword = 'a different and much longer passphrase 7';

    // Sign-up with Elements' registration form, then the code from the mail on its verification screen.
    await page.goto(`${appUrl}/registration`);
    await inApp(page, '/registration');
    await page.getByRole('textbox', { name: 'E-Mail' }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await inApp(page, '/verification');
    await page.getByRole('textbox', { name: 'Verification code' }).fill(await codeFor(email, 'verification_code'));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('You successfully verified your email address.').waitFor();
    await page.getByRole('link', { name: 'Continue' }).click();
    expect(await home(page)).toEqual({ email, aal: 'aal1' });

    await logOut(page);
    await logInWithPassword(page, email, password);
    expect(await home(page)).toEqual({ email, aal: 'aal1' });

    // TOTP enrolment in Elements' settings.
    await page.goto(`${appUrl}/settings`);
    await inApp(page, '/settings');
    const secret = await page.locator('input[name="totp_secret_key"]').inputValue();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const totpForm = page.locator('form', { has: page.locator('input[name="totp_code"]') });
    const authenticator = authenticatorApp(secret);
    await totpForm.getByRole('textbox', { name: 'Verify code' }).fill(await authenticator.code());
    await totpForm.getByRole('button', { name: 'Save' }).click();
    await page.getByText('You currently have an authenticator app connected.').waitFor();
    await inApp(page, '/settings');

    // The next login asks for the second factor in the app, not on the identity's hosted page.
    await page.goto(appUrl);
    await logOut(page);
    await logInWithPassword(page, email, password);
    await secondFactor(page, authenticator);
    expect(await home(page)).toEqual({ email, aal: 'aal2' });

    // A refresh login through the app keeps the session at aal2.
    await page.goto(`${appUrl}/login?refresh=true`);
    await inApp(page, '/login');
    await page.getByText('Confirm your identity with your email and password').waitFor();
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await home(page)).toEqual({ email, aal: 'aal2' });

    // Recovery by code leads to the app's settings through its second-factor step, back to the
    // recovery's settings flow, where a new password is saved.
    await logOut(page);
    await page.goto(`${appUrl}/recovery`);
    await inApp(page, '/recovery');
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('textbox', { name: 'Recovery code' }).fill(await codeFor(email, 'recovery_code'));
    await page.getByRole('button', { name: 'Continue' }).click();
    await secondFactor(page, authenticator);
    await inApp(page, '/settings');
    await page.getByText('You successfully recovered your account.', { exact: false }).waitFor();
    const passwordForm = page.locator('form', { has: page.locator('input[name="password"]') });
    await passwordForm.getByLabel('Password', { exact: true }).fill(newPassword);
    await passwordForm.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Your changes have been saved!').waitFor();
    await inApp(page, '/settings');

    await page.goto(appUrl);
    await logOut(page);
    await logInWithPassword(page, email, newPassword);
    await secondFactor(page, authenticator);
    expect(await home(page)).toEqual({ email, aal: 'aal2' });
    await context.close();
  }, 150_000);
});

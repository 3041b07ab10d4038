import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { seriousViolations } from '../support/axe.js';
import { identitySession } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

type Mail = { to: string; template: string; code?: string; link?: string };

/** The newest mail of `template` identity's dev outbox holds for `email`, waiting for it to arrive. */
async function mailFor(email: string, template: 'verification_code' | 'recovery_code' | 'recovery_link', count = 1): Promise<Mail> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await fetch(`${stack.identityUrl}/dev/outbox?to=${encodeURIComponent(email)}`);
    const { messages } = (await response.json()) as { messages: Mail[] };
    const matching = messages.filter((mail) => mail.template === template);
    if (matching.length >= count) return matching.at(-1) as Mail;
    if (Date.now() > deadline) throw new Error(`no ${template} mail for ${email}: ${JSON.stringify(messages)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const pathOf = (page: Page) => new URL(page.url()).pathname;

/** Whether `locator` shows up within a few seconds. */
const appears = (locator: Locator) =>
  locator.waitFor({ timeout: 5_000 }).then(
    () => true,
    () => false,
  );

async function logIn(page: Page, email: string, password: string) {
  await page.goto(`${stack.consoleUrl}/login`);
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
}

/** Ends the session through the shell's menu when the shell is there, else by dropping the cookies. */
async function logOut(context: BrowserContext, page: Page) {
  const menu = page.getByRole('button', { name: 'Account menu' });
  if (!(await appears(menu))) return context.clearCookies();
  await menu.click();
  await page.getByRole('menuitem', { name: 'Log out' }).click();
  await page.waitForURL(`${stack.consoleUrl}/login`);
}

/** On identity's /ui/settings page (signed in by the recovery): submits a new password and waits for `answer`. */
async function setNewPassword(page: Page, password: string, answer = 'Your changes have been saved!') {
  await page.waitForURL(new RegExp(`^${stack.identityUrl}/ui/settings\\?flow=`));
  const card = page.getByTestId('ory/screen/settings/group/password');
  await card.getByRole('textbox', { name: 'Password' }).fill(password);
  await card.getByRole('button', { name: 'Save' }).click();
  await card.getByText(answer).waitFor();
}

/** A verified account, created over the API. */
const verifiedAccount = (label: string) =>
  identitySession(stack.identityUrl).signUp(`e2e-auth-${label}-${Date.now()}@example.com`, { password: 'the first long passphrase' });

let context: BrowserContext | undefined;
afterEach(async () => {
  await context?.close();
  context = undefined;
});

async function newPage() {
  context = await chromium.browser.newContext();
  return { context, page: await context.newPage() };
}

describe('the auth screens in Chromium', () => {
  it('signs up on /signup, verifies the e-mailed code, logs out, fails with a wrong password and logs in', async () => {
    const { context, page } = await newPage();
    const email = `e2e-auth-journey-${Date.now()}@example.com`;
    const password = 'a long passphrase for the auth journey';

    await page.goto(`${stack.consoleUrl}/signup`);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Sign up' }).click();

    await page.waitForURL(new RegExp(`^${stack.consoleUrl}/verify-email\\?flowId=`));
    const { code } = await mailFor(email, 'verification_code');
    await page.getByRole('textbox', { name: 'Verification code' }).fill(code ?? '');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('Email verified!').waitFor();
    await page.waitForURL(`${stack.consoleUrl}/dashboard`);
    // The shell is built beside these screens; where it is there, it shows this user.
    const banner = page.getByRole('banner');
    if (await appears(banner)) await banner.getByText(email).waitFor();

    await logOut(context, page);
    await logIn(page, email, 'not the right passphrase');
    const alert = page.getByRole('alert');
    await alert.getByText('Failure').waitFor();
    expect(await alert.textContent()).toContain('The provided credentials are invalid');
    expect(pathOf(page)).toBe('/login');

    await logIn(page, email, password);
    await page.waitForURL(`${stack.consoleUrl}/dashboard`);
  });

  it("recovers by link: the e-mailed link signs in on identity's settings page, where the new password is set", async () => {
    const { email } = await verifiedAccount('link');
    const { context, page } = await newPage();
    const newPassword = 'a new passphrase after the link';

    await page.goto(`${stack.consoleUrl}/recover`);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('button', { name: 'Send recovery link' }).click();
    await page.getByText("We've sent you an email containing the link to recover your account.").waitFor();

    const { link } = await mailFor(email, 'recovery_link');
    await page.goto(link ?? '');
    await setNewPassword(page, newPassword);

    await context.clearCookies();
    await logIn(page, email, newPassword);
    await page.waitForURL(`${stack.consoleUrl}/dashboard`);
  });

  it('recovers by code: /recover, then the code on /recover-password, then the new password on identity', async () => {
    const { email } = await verifiedAccount('code');
    const { context, page } = await newPage();
    const newPassword = 'a new passphrase after the code';

    await page.goto(`${stack.consoleUrl}/recover`);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('button', { name: 'Use a code instead' }).click();
    await page.waitForURL(new RegExp(`^${stack.consoleUrl}/recover-password\\?flowId=`));

    const { code } = await mailFor(email, 'recovery_code');
    await page.getByRole('textbox', { name: 'Recovery code' }).fill(code ?? '');
    await page.getByRole('button', { name: 'Recover account' }).click();
    await setNewPassword(page, 'password', 'The password has been found in data breaches and must no longer be used.');
    await setNewPassword(page, newPassword);

    await context.clearCookies();
    await logIn(page, email, newPassword);
    await page.waitForURL(`${stack.consoleUrl}/dashboard`);
  });

  it('explains a recovery link that was already used, back on /recover-password', async () => {
    const { email } = await verifiedAccount('used-link');
    const { context, page } = await newPage();

    await page.goto(`${stack.consoleUrl}/recover`);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('button', { name: 'Send recovery link' }).click();
    const { link } = await mailFor(email, 'recovery_link');
    await page.goto(link ?? '');
    await page.waitForURL(new RegExp(`^${stack.identityUrl}/ui/settings\\?flow=`));

    await context.clearCookies();
    await page.goto(link ?? '');
    await page.waitForURL(new RegExp(`^${stack.consoleUrl}/recover-password\\?flow=`));
    await page.getByText('The recovery token is invalid or has already been used. Please retry the flow.').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('Something went wrong');
  });

  it('sends an unverified user who logs in to /verify-email, where a code can be sent and the user can log out', async () => {
    const email = `e2e-auth-unverified-${Date.now()}@example.com`;
    const password = 'a long passphrase, never verified';
    await identitySession(stack.identityUrl).signUp(email, { password, verify: false });

    const { page } = await newPage();
    await logIn(page, email, password);
    await page.waitForURL(`${stack.consoleUrl}/verify-email`);
    await page.getByText(`A new code will be sent to ${email}.`).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Send code' }).click();
    await page.waitForURL(new RegExp(`^${stack.consoleUrl}/verify-email\\?flowId=`));
    await page.getByRole('textbox', { name: 'Verification code' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    // Registration mailed the first code; Send code mailed a second one.
    expect((await mailFor(email, 'verification_code', 2)).code).toHaveLength(6);

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${stack.consoleUrl}/login`);
  });

  it('has no serious or critical accessibility violation on /login, /signup and /recover, with their messages and alerts shown', async () => {
    const { page } = await newPage();

    await page.goto(`${stack.consoleUrl}/login`);
    await page.getByRole('button', { name: 'Login' }).click();
    await page.getByText('This field is required').first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('textbox', { name: 'Email' }).fill('nobody@example.com');
    await page.getByLabel('Password', { exact: true }).fill('not a password of anyone');
    await page.getByRole('button', { name: 'Login' }).click();
    await page.getByRole('alert').getByText('Failure').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`${stack.consoleUrl}/signup`);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('You must agree to the terms of service and privacy policy to create an account').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`${stack.consoleUrl}/recover`);
    await page.getByRole('textbox', { name: 'Email' }).fill('nobody@example.com');
    await page.getByRole('button', { name: 'Send recovery link' }).click();
    await page.getByRole('alert').getByText('Something went wrong').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });
});

import AxeBuilder from '@axe-core/playwright';
import type { APIRequestContext, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

const json = { accept: 'application/json' };
const csrfOf = (flow: any) => flow.ui.nodes.find((node: any) => node.attributes.name === 'csrf_token').attributes.value;

/** The identity API called from the browser's own cookie jar, as the console's SDK calls it. */
async function callIdentity(request: APIRequestContext, method: 'GET' | 'POST', path: string, data?: unknown) {
  const response = await request.fetch(`${stack.identityUrl}${path}`, { method, headers: json, ...(data ? { data } : {}) });
  return { status: response.status(), body: response.status() === 204 ? null : await response.json() };
}

/** Signs up in the context's cookie jar (identity starts a session); verifies the address with the mailed code unless told not to. */
async function signUp(context: BrowserContext, email: string, { verify = true } = {}) {
  const registration = await callIdentity(context.request, 'GET', '/self-service/registration/browser');
  const registered = await callIdentity(context.request, 'POST', `/self-service/registration?flow=${registration.body.id}`, {
    method: 'password',
    traits: { email },
    password: 'a long passphrase for the shell e2e',
    csrf_token: csrfOf(registration.body),
  });
  expect(registered.status).toBe(200);
  if (!verify) return;
  const flowId = registered.body.continue_with.find((item: any) => item.action === 'show_verification_ui').flow.id;
  const outbox = await callIdentity(context.request, 'GET', `/dev/outbox?to=${encodeURIComponent(email)}`);
  const verified = await callIdentity(context.request, 'POST', `/self-service/verification?flow=${flowId}`, {
    method: 'code',
    code: outbox.body.messages.at(-1).code,
  });
  expect(verified.body.state).toBe('passed_challenge');
}

/** Violations axe rates serious or critical, in the parts of the page given. */
async function seriousViolations(page: Page, ...selectors: string[]) {
  let builder = new AxeBuilder({ page });
  for (const selector of selectors) builder = builder.include(selector);
  const { violations } = await builder.analyze();
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => `${node.target.join(' ')} (${node.failureSummary ?? ''})`).join(', ')}`);
}

describe('the signed-in shell in Chromium', () => {
  const stamp = Date.now();
  // The organisation is named after the e-mail's local part; the digits are left out.
  const email = `ada.shell.${stamp}@example.com`;
  const organizationName = "Ada Shell's organisation";
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await chromium.browser.newContext();
    page = await context.newPage();
    await signUp(context, email);
  });
  afterAll(async () => {
    await context?.close();
  });

  it("shows the 55 px top bar with the user's e-mail and organisation name on /dashboard", async () => {
    await page.goto(`${stack.consoleUrl}/dashboard`);
    const banner = page.getByRole('banner');
    await banner.getByText(email).waitFor();
    expect(await banner.getByText(organizationName).isVisible()).toBe(true);
    expect((await banner.boundingBox())?.height).toBe(55);
    expect(new URL(page.url()).pathname).toBe('/dashboard');
  });

  it('has no serious or critical accessibility violation in the shell, its menu and the feedback modal', async () => {
    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByRole('banner').getByText(email).waitFor();
    expect(await seriousViolations(page, 'header')).toEqual([]);

    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menu').waitFor();
    expect(await seriousViolations(page, '[role="menu"]')).toEqual([]);

    await page.getByRole('menuitem', { name: 'Send feedback' }).click();
    await page.getByRole('dialog', { name: 'Send feedback' }).waitFor();
    expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
    await page.keyboard.press('Escape');
  });

  it('opens the docs in a new tab', async () => {
    await page.goto(`${stack.consoleUrl}/dashboard`);
    const docs = page.getByRole('banner').getByRole('link', { name: 'Docs' });
    expect(await docs.getAttribute('target')).toBe('_blank');
    expect(await docs.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await docs.getAttribute('href')).toBe(`${stack.apiUrl}/docs`);

    const [tab] = await Promise.all([context.waitForEvent('page'), docs.click()]);
    await tab.waitForLoadState();
    expect(tab.url()).toBe(`${stack.apiUrl}/docs`);
    await tab.close();
  });

  it('offers no Admin item to an ordinary user', async () => {
    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByRole('button', { name: 'Account menu' }).click();
    const items = await page.getByRole('menu').getByRole('menuitem').allTextContents();
    expect(items).toEqual(['Settings', 'Send feedback', 'Log out']);
    await page.keyboard.press('Escape');
  });

  it('sends feedback to the api and says Success!', async () => {
    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Send feedback' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send feedback' });
    await dialog.getByRole('combobox', { name: 'Type' }).click();
    await page.getByRole('option', { name: 'Question' }).click();
    await dialog.getByRole('textbox', { name: 'Description' }).fill('Where do I see my invoices?');
    const posted = page.waitForResponse((response) => response.url() === `${stack.apiUrl}/bff/feedback`);
    await dialog.getByRole('button', { name: 'Send feedback' }).click();

    expect((await posted).status()).toBe(201);
    await page.getByText('Success!').waitFor();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('sends an unknown path to /dashboard', async () => {
    await page.goto(`${stack.consoleUrl}/no-such-page`);
    await page.waitForURL(`${stack.consoleUrl}/dashboard`);
    await page.getByRole('banner').getByText(email).waitFor();
  });

  it("Settings lands on identity's settings page for a new flow", async () => {
    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Settings' }).click();
    await page.waitForURL((url) => url.origin === stack.identityUrl && url.pathname === '/ui/settings' && url.searchParams.has('flow'));
  });

  it('Log out lands on /login, and /dashboard then goes to /login', async () => {
    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.waitForURL(`${stack.consoleUrl}/login`);
    expect((await callIdentity(context.request, 'GET', '/sessions/whoami')).status).toBe(401);

    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.waitForURL(`${stack.consoleUrl}/login`);
    expect(await page.getByRole('banner').count()).toBe(0);
  });

  it('sends a signed-in user whose e-mail is not verified to /verify-email', async () => {
    const unverified = await chromium.browser.newContext();
    try {
      await signUp(unverified, `unverified.${stamp}@example.com`, { verify: false });
      const tab = await unverified.newPage();
      await tab.goto(`${stack.consoleUrl}/dashboard`);
      await tab.waitForURL((url) => url.pathname === '/verify-email');
    } finally {
      await unverified.close();
    }
  });
});

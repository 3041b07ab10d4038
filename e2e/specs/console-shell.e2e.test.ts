import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { seriousViolations } from '../support/axe.js';
import { callIdentity, signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

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
    expect(await seriousViolations(page, { include: 'header' })).toEqual([]);

    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menu').waitFor();
    expect(await seriousViolations(page, { include: '[role="menu"]' })).toEqual([]);
    // Spec §3: the avatar menu is 200 px wide.
    expect((await page.getByRole('menu').boundingBox())?.width).toBe(200);

    await page.getByRole('menuitem', { name: 'Send feedback' }).click();
    await page.getByRole('dialog', { name: 'Send feedback' }).waitFor();
    expect(await seriousViolations(page, { include: '[role="dialog"]' })).toEqual([]);
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
    // The organisation the owner works in, with their role, then what an owner may open: no Admin.
    expect(items).toEqual([
      expect.stringMatching(/organisation \(Owner\)$/),
      'New organisation',
      'Members',
      'Audit log',
      'Settings',
      'Two-factor authentication',
      'Send feedback',
      'Log out',
    ]);
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

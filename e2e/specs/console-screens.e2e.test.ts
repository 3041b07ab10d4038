/// <reference lib="dom" />
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

const noPageOverflow = (page: Page) =>
  page.evaluate(() => (document.scrollingElement?.scrollWidth ?? 0) <= window.innerWidth);

/** Not clipped: the element shows all of its text within its own box. */
const showsInFull = (page: Page, text: string) =>
  page.getByText(text, { exact: true }).evaluate((element) => element.scrollWidth <= element.clientWidth && element.getBoundingClientRect().right <= window.innerWidth);

describe('the console on small and large screens in Chromium', () => {
  const email = `ada.screens.${Date.now()}@example.com`;
  const organizationName = "Ada Screens's organisation";
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

  for (const width of [390, 1280, 1920]) {
    it(`fits ${width} px: no sideways page scroll and the empty states readable in full`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${stack.consoleUrl}/dashboard`);
      await page.getByText('No publishable keys added yet.').waitFor();
      await page.screenshot({ path: `/tmp/screens/dashboard-${width}.png`, fullPage: true });
      expect(await noPageOverflow(page)).toBe(true);
      expect(await showsInFull(page, 'No publishable keys added yet.')).toBe(true);

      await page.goto(`${stack.consoleUrl}/chat-completions`);
      await page.getByText('No chat completions found').waitFor();
      await page.screenshot({ path: `/tmp/screens/chat-completions-${width}.png`, fullPage: true });
      expect(await noPageOverflow(page)).toBe(true);
      expect(await showsInFull(page, 'No chat completions found')).toBe(true);
    });
  }

  it('names the user and organisation in the avatar menu at 390 px, where the top bar has no room', async () => {
    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByRole('button', { name: 'Account menu' }).click();
    const menu = page.getByRole('menu');
    await menu.waitFor();
    await menu.getByText(organizationName).waitFor();
    await page.screenshot({ path: '/tmp/screens/menu-390.png', animations: 'disabled' });
    expect(await menu.getByText(email).isVisible()).toBe(true);
    expect(await menu.getByText(organizationName).isVisible()).toBe(true);
    await page.keyboard.press('Escape');
  });

  it("Two-factor authentication opens identity's settings page at its TOTP section", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Two-factor authentication' }).click();
    await page.waitForURL((url) => url.pathname === '/ui/settings' && url.hash === '#totp');
    const totp = page.locator('#totp');
    await totp.waitFor();
    await page.waitForFunction(() => {
      const top = document.getElementById('totp')?.getBoundingClientRect().top ?? -1;
      return top >= 0 && top < window.innerHeight;
    });
    await page.screenshot({ path: '/tmp/screens/settings-totp-1280.png' });
    expect(new URL(page.url()).origin).toBe(new URL(stack.identityUrl).origin);
  });
  it('keeps "$25 / month" on one line at 1400 px and the keys table inside a 390 px screen', async () => {
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByRole('button', { name: 'New publishable key' }).click();
    const create = page.getByRole('dialog', { name: 'New publishable key' });
    const name = 'Storefront checkout widget for the European marketing site';
    await create.getByLabel('Name', { exact: true }).fill(name);
    await create.getByLabel('Budget', { exact: true }).fill('25');
    await create.getByRole('button', { name: 'Add domain' }).click();
    await create.getByLabel('Allowed domain 2', { exact: true }).fill('https://shop.example.com');
    await create.getByRole('button', { name: 'Create key' }).click();
    await create.getByRole('button', { name: 'Done' }).click();
    await create.waitFor({ state: 'hidden' });

    const budget = page.getByText('$25 / month', { exact: true });
    await budget.waitFor();
    await page.screenshot({ path: '/tmp/screens/keys-1400.png', fullPage: true });
    // One client rect per rendered line of the text.
    const lines = await budget.evaluate((cell) => {
      const range = document.createRange();
      range.selectNodeContents(cell);
      return range.getClientRects().length;
    });
    expect(lines).toBe(1);
    expect(await page.getByRole('button', { name: `Edit key ${name}` }).isVisible()).toBe(true);

    await page.setViewportSize({ width: 390, height: 900 });
    await page.screenshot({ path: '/tmp/screens/keys-390.png', fullPage: true });
    expect(await noPageOverflow(page)).toBe(true);
  });
});

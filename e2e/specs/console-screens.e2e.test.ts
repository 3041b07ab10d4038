/// <reference lib="dom" />
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

const noPageOverflow = (page: Page) => page.evaluate(() => (document.scrollingElement?.scrollWidth ?? 0) <= window.innerWidth);

type Box = { x: number; y: number; width: number; height: number };

const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The box of the toast saying `text`, once its entrance transition has stopped moving it. */
async function toastBox(page: Page, text: string): Promise<Box> {
  const toast = page.locator('.mantine-Notification-root', { hasText: text });
  await toast.waitFor();
  let last = '';
  await expect
    .poll(
      async () => {
        const now = JSON.stringify(await toast.boundingBox());
        const settled = now !== 'null' && now === last;
        last = now;
        return settled;
      },
      { interval: 100 },
    )
    .toBe(true);
  return JSON.parse(last) as Box;
}

/** Not clipped: the element shows all of its text within its own box. */
const showsInFull = (page: Page, text: string) =>
  page
    .getByText(text, { exact: true })
    .evaluate((element) => element.scrollWidth <= element.clientWidth && element.getBoundingClientRect().right <= window.innerWidth);

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
      // The top bar's links read on one line each.
      for (const link of ['Chat completions', 'Docs']) {
        const lines = await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: link })
          .evaluate((element) => {
            const range = document.createRange();
            range.selectNodeContents(element);
            return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
          });
        expect(lines, link).toBe(1);
      }
    });
  }

  for (const width of [390, 1280]) {
    it(`at ${width} px a toast leaves the button pressed uncovered: the alerts' Save, and a key modal's Save that fails`, async () => {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(`${stack.consoleUrl}/dashboard`);
      const saveAlerts = page.getByRole('button', { name: 'Save alerts' });
      await saveAlerts.scrollIntoViewIfNeeded();
      const alertsBox = (await saveAlerts.boundingBox())!;
      await saveAlerts.click();
      const saved = await toastBox(page, 'Alert settings saved');
      await page.screenshot({ path: `/tmp/screens/toast-alerts-${width}.png` });
      expect(overlaps(saved, alertsBox)).toBe(false);
      // Nor does it hide the top bar's links and menu.
      expect(saved.y).toBeGreaterThanOrEqual(55);

      const name = `Toast ${width}`;
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.getByRole('button', { name: 'New publishable key' }).click();
      const create = page.getByRole('dialog', { name: 'New publishable key' });
      await create.getByLabel('Name', { exact: true }).fill(name);
      await create.getByRole('button', { name: 'Create key' }).click();
      await create.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('button', { name: `Edit key ${name}` }).click();
      const edit = page.getByRole('dialog', { name: 'Edit publishable key' });
      const saveKey = edit.getByRole('button', { name: 'Save' });
      await saveKey.waitFor();
      // Deleted meanwhile (from another tab, say): this Save fails, and the modal stays open under its toast.
      const bff = { headers: { origin: stack.consoleUrl } };
      const { publishableKeys } = await (await context.request.get(`${stack.apiUrl}/bff/publishable-keys`, bff)).json();
      const key = publishableKeys.find((candidate: { name: string }) => candidate.name === name);
      expect((await context.request.delete(`${stack.apiUrl}/bff/publishable-keys/${key.id}`, bff)).status()).toBe(204);
      const keyBox = (await saveKey.boundingBox())!;
      await saveKey.click();
      const failed = await toastBox(page, 'Failed to update publishable key');
      await page.screenshot({ path: `/tmp/screens/toast-key-modal-${width}.png` });
      expect(await saveKey.isVisible()).toBe(true);
      expect(overlaps(failed, keyBox)).toBe(false);
      await page.keyboard.press('Escape');
    });
  }

  it('names the user and organisation in the avatar menu at 390 px, where the top bar has no room', async () => {
    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByRole('button', { name: 'Account menu' }).click();
    const menu = page.getByRole('menu');
    await menu.waitFor();
    await menu.getByTestId('menu-identity').getByText(organizationName).waitFor();
    await page.screenshot({ path: '/tmp/screens/menu-390.png', animations: 'disabled' });
    expect(await menu.getByText(email).isVisible()).toBe(true);
    expect(await menu.getByTestId('menu-identity').getByText(organizationName).isVisible()).toBe(true);
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

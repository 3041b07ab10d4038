import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

// Issue #53: two tabs of one browser, one person in two organisations. Each tab acts in the
// organisation it shows; a switch in one moves no other, and a key made in a tab lands where it shows.
describe('two console tabs in two organisations', () => {
  const stamp = Date.now();
  const email = `ada.tabs.${stamp}@example.com`;
  const ownName = "Ada Tabs's organisation";
  const sideName = `Side ${stamp}`;
  let context: BrowserContext;

  beforeAll(async () => {
    context = await chromium.browser.newContext();
    await signUp(context, email);
  });
  afterAll(async () => {
    await context?.close();
  });

  const banner = (page: Page) => page.getByRole('banner');
  async function showing(page: Page, name: string) {
    await banner(page).getByText(name, { exact: true }).waitFor();
  }
  async function switchTo(page: Page, name: string, role: string) {
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: `${name} (${role})` }).click();
    await showing(page, name);
  }

  it('keeps each tab in its organisation across switches and reloads, and puts a key where its tab shows', { timeout: 120_000 }, async () => {
    const first = await context.newPage();
    await first.goto(`${stack.consoleUrl}/dashboard`);
    await showing(first, ownName);

    // A second organisation, made (and so shown) in the first tab.
    await first.getByRole('button', { name: 'Account menu' }).click();
    await first.getByRole('menuitem', { name: 'New organisation' }).click();
    const dialog = first.getByRole('dialog', { name: 'New organisation' });
    await dialog.getByLabel('Name').fill(sideName);
    await dialog.getByRole('button', { name: 'Create' }).click();
    await showing(first, sideName);

    // A new tab starts on the organisation last chosen; there it switches back to the person's own.
    const second = await context.newPage();
    await second.goto(`${stack.consoleUrl}/dashboard`);
    await showing(second, sideName);
    await switchTo(second, ownName, 'Owner');

    // The first tab did not follow: it still shows, and acts in, the side organisation.
    await first.reload();
    await showing(first, sideName);
    await first.getByRole('button', { name: 'New publishable key' }).click();
    const create = first.getByRole('dialog', { name: 'New publishable key' });
    await create.getByLabel('Name', { exact: true }).fill('Side key');
    await create.getByRole('button', { name: 'Create key' }).click();
    await create.getByLabel('Publishable key', { exact: true }).waitFor();
    await create.getByRole('button', { name: 'Done' }).click();
    await first.getByRole('button', { name: 'Edit key Side key', exact: true }).waitFor();

    // The second tab's organisation has no such key.
    await second.reload();
    await showing(second, ownName);
    await second.getByText('No publishable keys added yet.').waitFor();
    expect(await second.getByRole('button', { name: 'Edit key Side key', exact: true }).count()).toBe(0);
  });
});

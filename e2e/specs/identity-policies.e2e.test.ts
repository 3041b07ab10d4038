import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

describe('recovery for an address nobody signed up with, in Chromium', () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await chromium.browser.newContext();
    page = await context.newPage();
  });
  afterAll(async () => {
    await context?.close();
  });

  it.each(['Send recovery link', 'Use a code instead'])("says 'Something went wrong' for %s and mails nobody", async (button) => {
    const email = `nobody.${Date.now()}.${button.length}@example.com`;
    await page.goto(`${stack.consoleUrl}/recover`);
    await page.getByRole('textbox', { name: 'Email' }).fill(email);
    await page.getByRole('button', { name: button }).click();

    await page.getByRole('alert').getByText('Something went wrong').waitFor();
    expect(await page.getByText("We've sent you an email containing the link to recover your account.").count()).toBe(0);
    expect(page.url()).toBe(`${stack.consoleUrl}/recover`);
    const outbox = (await (await fetch(`${stack.identityUrl}/dev/outbox?to=${encodeURIComponent(email)}`)).json()) as { messages: unknown[] };
    expect(outbox.messages).toEqual([]);
  });
});

describe('a commonly breached password, in Chromium', () => {
  it("is refused at sign-up with Kratos' text in the Failure alert, and no account is made", async () => {
    const context = await chromium.browser.newContext();
    try {
      const page = await context.newPage();
      const email = `breached.${Date.now()}@example.com`;
      await page.goto(`${stack.consoleUrl}/signup`);
      await page.getByRole('textbox', { name: 'Email' }).fill(email);
      await page.getByLabel('Password', { exact: true }).fill('password');
      await page.getByRole('checkbox').check();
      await page.getByRole('button', { name: 'Sign up' }).click();

      const alert = page.getByRole('alert').filter({ hasText: 'Failure' });
      await alert.getByText('The password has been found in data breaches and must no longer be used.').waitFor();
      expect(page.url()).toBe(`${stack.consoleUrl}/signup`);
      const outbox = (await (await fetch(`${stack.identityUrl}/dev/outbox?to=${encodeURIComponent(email)}`)).json()) as { messages: unknown[] };
      expect(outbox.messages).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

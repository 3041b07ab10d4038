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

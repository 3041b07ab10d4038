import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { identitySession, signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

const inProgress = 'Payment in progress... Please wait while we process your payment.';
const notFound = 'We could not find this payment. If you paid, your credit appears on the dashboard once the payment is confirmed.';
const refusedLink = 'That page link has expired or is invalid; showing the first page.';

describe('links that lead nowhere in Chromium', () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await chromium.browser.newContext();
    await signUp(context, `dead-ends-${Date.now()}@example.com`);
    page = await context.newPage();
  });
  afterAll(async () => {
    await context?.close();
  });

  it("another organisation's checkout session stays in progress, and after a minute says it cannot be found", async () => {
    // A real session of someone else's, created the way the console creates one.
    const other = identitySession(stack.identityUrl);
    await other.signUp(`dead-ends-other-${Date.now()}@example.com`);
    const created = await other.call('POST', `${stack.apiUrl}/bff/stripe/checkout-session`, { amount: 10 }, { origin: stack.consoleUrl });
    expect(created.status).toBe(200);
    const { checkoutSessionId } = created.body;

    // A page with a clock of its own, so the minute passes without waiting for it.
    const page = await context.newPage();
    await page.clock.install();
    await page.goto(`${stack.consoleUrl}/add-credits?checkoutSessionId=${encodeURIComponent(checkoutSessionId)}`);
    const status = page.getByRole('status');
    await status.getByText(inProgress).waitFor();
    await page.clock.runFor(50_000);
    expect(await status.getByText(notFound).count()).toBe(0);

    await page.clock.runFor(11_000);
    await status.getByText(notFound).waitFor();
    expect(await status.getByText(inProgress).isVisible()).toBe(true);
    await page.screenshot({ path: '/tmp/screens/payment-not-found-1280.png' });

    await page.getByRole('link', { name: 'Back to dashboard' }).click();
    await page.waitForURL(`${stack.consoleUrl}/dashboard`);
    await page.close();
  });

  it.each([
    ['/chat-completions?page=3&nextPageToken=not-a-token', '/chat-completions'],
    ['/chat-completions?page=2&previousPageToken=x.y&sortDirection=ASC', '/chat-completions?sortDirection=ASC'],
  ])('%s, refused by the api, shows page 1 with a notice and leaves no history entry', async (link, replacement) => {
    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByText('Credit balance', { exact: true }).waitFor();
    await page.goto(`${stack.consoleUrl}${link}`);
    await page.getByText(refusedLink).waitFor();
    await page.getByText('No chat completions found').waitFor();
    expect(page.url()).toBe(`${stack.consoleUrl}${replacement}`);
    expect(await page.getByText('This list could not be loaded.').count()).toBe(0);

    await page.goBack();
    await page.waitForURL(`${stack.consoleUrl}/dashboard`);
  });

  it.each([
    ['/dashboard%', 400],
    ['/%E0%A4%A', 400],
    ['/..%2f', 200],
  ])('the malformed address %s opens the console (%i), which goes on to the dashboard', async (path, status) => {
    const response = await page.goto(`${stack.consoleUrl}${path}`);
    expect(response?.status()).toBe(status);
    expect(response?.headers()['content-type']).toMatch(/^text\/html/);
    await page.waitForURL(`${stack.consoleUrl}/dashboard`);
    await page.getByText('Credit balance', { exact: true }).waitFor();
  });
});

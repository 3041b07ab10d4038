import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { seriousViolations } from '../support/axe.js';
import { signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

/** The screen's own content; the shell around it (the top bar) is checked by console-shell's spec. */
const screenViolations = (page: Page) => seriousViolations(page, { include: 'main' });

/** From /add-credits: the amount, Continue, the sandbox's card form, Complete purchase. */
async function payWithCard(page: Page, amount: string, cardNumber: string, { checkA11y = false } = {}) {
  await page.goto(`${stack.consoleUrl}/add-credits`);
  const amountInput = page.getByLabel('Amount');
  await amountInput.waitFor();
  if (checkA11y) expect(await screenViolations(page)).toEqual([]);
  await amountInput.fill(amount);
  await page.getByRole('button', { name: 'Continue' }).click();

  await page.getByLabel('Card number').waitFor();
  await page.getByText('Test mode — no real money is charged').waitFor();
  const credit = page.getByRole('table', { name: 'Order summary' }).getByRole('row', { name: /^Usage credit/ });
  await expect.poll(() => credit.textContent()).toContain(`$${Number(amount).toFixed(2)}`);
  if (checkA11y) expect(await screenViolations(page)).toEqual([]);

  await page.getByLabel('Card number').fill(cardNumber);
  await page.getByLabel('Expiry (MM/YY)').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: 'Complete purchase' }).click();
  await page.waitForURL(/\/add-credits\?checkoutSessionId=cs_/);
}

describe('adding credits in Chromium with the sandbox provider', () => {
  it('tops up $25 with the success card and sees the balance; the decline card fails', async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    await signUp(context, `credits-${Date.now()}@example.com`);

    await payWithCard(page, '25', '4242 4242 4242 4242', { checkA11y: true });
    await page.getByText('Payment successful! Your credit was successfully refilled.').waitFor({ timeout: 15_000 });
    expect(await screenViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Back to dashboard' }).click();
    await page.waitForURL(/\/dashboard$/);
    await page.getByText('Credit balance').waitFor();
    await expect.poll(() => page.getByText('$25.00', { exact: true }).isVisible()).toBe(true);

    await payWithCard(page, '10', '4000 0000 0000 0002');
    await page.getByText('Payment failed! Please try again.').waitFor({ timeout: 15_000 });
    await page.getByRole('link', { name: 'Back to dashboard' }).click();
    await page.waitForURL(/\/dashboard$/);
    await expect.poll(() => page.getByText('$25.00', { exact: true }).isVisible()).toBe(true);
    await context.close();
  });
});

import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { seriousViolations } from '../support/axe.js';
import { signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

/** The screen's own content; the shell around it (the top bar) is checked by console-shell's spec. */
const screenViolations = (page: Page) => seriousViolations(page, { include: 'main' });

/** From /add-credits: the amount, Continue, up to the sandbox's card form. */
async function openCheckout(page: Page, amount: string, { checkA11y = false } = {}) {
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
}

/** Fills the card form and presses Complete purchase. */
async function submitCard(page: Page, cardNumber: string, expiry = '12/34') {
  await page.getByLabel('Card number').fill(cardNumber);
  await page.getByLabel('Expiry (MM/YY)').fill(expiry);
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: 'Complete purchase' }).click();
}

/** The refusal shown on the checkout step, which stays where it is. */
async function expectRefused(page: Page, reason: string) {
  await expect.poll(() => page.getByRole('alert').textContent()).toBe(reason);
  expect(new URL(page.url()).searchParams.has('checkoutSessionId')).toBe(false);
}

/** Back to the dashboard, which shows `balance`. */
async function expectBalance(page: Page, balance: string) {
  await page.getByRole('link', { name: 'Back to dashboard' }).click();
  await page.waitForURL(/\/dashboard$/);
  await page.getByText('Credit balance', { exact: true }).waitFor();
  await expect.poll(() => page.getByText(balance, { exact: true }).isVisible()).toBe(true);
}

describe('adding credits in Chromium with the sandbox provider', () => {
  it('tops up $25 with the success card; in a second checkout a declined card and a past expiry say why, and the corrected card pays', async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    await signUp(context, `credits-${Date.now()}@example.com`);

    await openCheckout(page, '25', { checkA11y: true });
    await submitCard(page, '4242 4242 4242 4242');
    await page.waitForURL(/\/add-credits\?checkoutSessionId=cs_/);
    await page.getByText('Payment successful! Your credit was successfully refilled.').waitFor({ timeout: 15_000 });
    expect(await screenViolations(page)).toEqual([]);
    await expectBalance(page, '$25.00');

    await openCheckout(page, '10');
    await submitCard(page, '4000 0000 0000 0002');
    await expectRefused(page, 'Your card was declined.');
    expect(await screenViolations(page)).toEqual([]);

    await submitCard(page, '4242 4242 4242 4242', '01/20');
    await expectRefused(page, "Your card's expiration year is in the past.");

    await submitCard(page, '4242 4242 4242 4242', '12/34');
    await page.waitForURL(/\/add-credits\?checkoutSessionId=cs_/);
    await page.getByText('Payment successful! Your credit was successfully refilled.').waitFor({ timeout: 15_000 });
    await expectBalance(page, '$35.00');
    await context.close();
  });

  it('a refund from the sandbox Invoices page leaves a spent top-up owing: the dashboard says so, the key is refused, the next top-up pays it', async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    await signUp(context, `refund-${Date.now()}@example.com`);
    await openCheckout(page, '10');
    await submitCard(page, '4242 4242 4242 4242');
    await page.getByText('Payment successful! Your credit was successfully refilled.').waitFor({ timeout: 15_000 });

    // Spend a little of it through the gateway with a new key (cookies are shared across the ports of localhost).
    const appOrigin = 'https://shop.example.com';
    const key = await page.request.post(`${stack.apiUrl}/bff/publishable-keys`, {
      headers: { origin: stack.consoleUrl },
      data: { name: 'Shop', budget: 10, budgetType: 'monthly', allowedOrigins: [appOrigin] },
    });
    const { value } = await key.json();
    const call = () =>
      page.request.post(`${stack.apiUrl}/v1/chat/completions`, {
        headers: { authorization: `Bearer ${value}`, origin: appOrigin },
        data: { model: 'meterway-demo', messages: [{ role: 'user', content: 'Hello.' }], max_tokens: 10 },
      });
    expect((await call()).status()).toBe(200);
    const me = async () => (await page.request.get(`${stack.apiUrl}/bff/me`, { headers: { origin: stack.consoleUrl } })).json();
    await expect.poll(async () => (await me()).remainingSpendAmount, { timeout: 10_000 }).toBeLessThan(10);

    // Invoices, as the dashboard opens it, then the sandbox's Refund button of the top-up.
    await page.getByRole('link', { name: 'Back to dashboard' }).click();
    await page.getByRole('button', { name: 'Invoices' }).click();
    await page.waitForURL(/\/sandbox\/portal\?token=/);
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await page.getByRole('cell', { name: 'Refunded', exact: true }).waitFor();

    await page.goto(`${stack.consoleUrl}/dashboard`);
    const notice = page.getByRole('status').filter({ hasText: 'Your organisation owes $0.01' });
    await notice.waitFor();
    expect(await notice.textContent()).toContain('Gateway calls, with publishable and secret keys alike, are refused until this is paid');
    expect(await screenViolations(page)).toEqual([]);
    expect((await call()).status()).toBe(402);

    await openCheckout(page, '5');
    await submitCard(page, '4242 4242 4242 4242');
    await page.getByText('Payment successful! Your credit was successfully refilled.').waitFor({ timeout: 15_000 });
    await page.getByRole('link', { name: 'Back to dashboard' }).click();
    await page.getByText('Credit balance', { exact: true }).waitFor();
    expect(await page.getByText(/Your organisation owes/).count()).toBe(0);
    expect((await me()).owedAmount).toBe(0);
    expect((await call()).status()).toBe(200);
    await context.close();
  });
});

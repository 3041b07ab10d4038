import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { seriousViolations } from '../support/axe.js';
import { signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

// Issue #22's acceptance: save a sandbox card, enable auto top-up, spend through the gateway below
// the threshold, see the new balance and the history entry.

const stack = inject('stack');
const chromium = useBrowser();

const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const screenViolations = (page: Page) => seriousViolations(page, { include: 'main' });
const autoTopUpCard = (page: Page) => page.getByRole('region', { name: 'Auto top-up' });

/** The sandbox card form (add credits or save a card): a test card, a future expiry, a CVC, then `submit`. */
async function submitCard(page: Page, submit: string) {
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByLabel('Expiry (MM/YY)').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: submit }).click();
}

describe('auto top-up in Chromium with the sandbox provider', () => {
  it('saves a card, turns auto top-up on, and a gateway call that leaves the balance below the threshold charges it once', async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    await signUp(context, `auto-top-up-${Date.now()}@example.com`);

    // $10 of credit to spend.
    await page.goto(`${stack.consoleUrl}/add-credits`);
    await page.getByLabel('Amount').fill('10');
    await page.getByRole('button', { name: 'Continue' }).click();
    await submitCard(page, 'Complete purchase');
    await page.getByText('Payment successful! Your credit was successfully refilled.').waitFor({ timeout: 15_000 });

    // Save a card from the dashboard's auto top-up card; the setup form charges nothing.
    await page.goto(`${stack.consoleUrl}/dashboard`);
    const card = autoTopUpCard(page);
    await card.getByText('Card: none saved').waitFor();
    await card.getByRole('button', { name: 'Save a card' }).click();
    await page.waitForURL(/\/auto-top-up\/card$/);
    await page.getByText('This saves your card for auto top-up.', { exact: false }).waitFor();
    expect(await screenViolations(page)).toEqual([]);
    await submitCard(page, 'Save card');
    await page.waitForURL(/\/dashboard$/, { timeout: 15_000 });
    await card.getByText('Card: Visa •••• 4242').waitFor();

    // On: below $10 (the balance now), add $5, at most $20 a month.
    await card.getByRole('button', { name: 'Edit auto top-up' }).click();
    const dialog = page.getByRole('dialog', { name: 'Auto top-up' });
    await dialog.getByRole('switch', { name: /^Turn on auto top-up/ }).check();
    await dialog.getByLabel('When the balance falls below').fill('10');
    await dialog.getByLabel('Add this amount').fill('5');
    await dialog.getByLabel('Monthly cap').fill('20');
    expect(await seriousViolations(page, { include: '[role="dialog"]' })).toEqual([]);
    await dialog.getByRole('button', { name: 'Save auto top-up' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await card.getByText('On', { exact: true }).waitFor();
    await card.getByText('When the balance falls below $10, add $5.').waitFor();
    await card.getByText('Charged this month: $0.00 of $20.00', { exact: false }).waitFor();
    await card.screenshot({ path: `${stack.dataDir}/auto-top-up-card.png` });
    expect(await screenViolations(page)).toEqual([]);

    // One gateway call leaves the balance just below $10: one $5 charge.
    const appOrigin = 'https://shop.example.com';
    const key = await page.request.post(`${stack.apiUrl}/bff/publishable-keys`, {
      headers: { origin: stack.consoleUrl },
      data: { name: 'Shop', budget: 10, budgetType: 'monthly', allowedOrigins: [appOrigin] },
    });
    const { value } = await key.json();
    const completion = await page.request.post(`${stack.apiUrl}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${value}`, origin: appOrigin },
      data: { model: 'meterway-demo', messages: [{ role: 'user', content: 'Hello.' }], max_tokens: 10 },
    });
    expect(completion.status()).toBe(200);
    const bff = async (path: string) => (await page.request.get(`${stack.apiUrl}${path}`, { headers: { origin: stack.consoleUrl } })).json();
    await expect.poll(async () => (await bff('/bff/auto-top-up')).chargedThisMonthAmount, { timeout: 20_000 }).toBe(5);
    await expect.poll(async () => (await bff('/bff/me')).remainingSpendAmount, { timeout: 20_000 }).toBeGreaterThan(14);
    const balance: number = (await bff('/bff/me')).remainingSpendAmount;
    expect(balance).toBeLessThan(15);

    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByText(money.format(balance), { exact: true }).waitFor();
    await card.getByText('Charged this month: $5.00 of $20.00', { exact: false }).waitFor();

    await page.goto(`${stack.consoleUrl}/credit-history`);
    await page.getByRole('table').getByText('Auto top-up', { exact: true }).waitFor();
    await context.close();
  });
});

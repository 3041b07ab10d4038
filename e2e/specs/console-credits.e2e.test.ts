import AxeBuilder from '@axe-core/playwright';
import type { APIRequestContext, Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

const json = { accept: 'application/json' };
const csrfOf = (flow: any) => flow.ui.nodes.find((node: any) => node.attributes.name === 'csrf_token').attributes.value;

async function callIdentity(request: APIRequestContext, method: 'GET' | 'POST', path: string, data?: unknown) {
  const response = await request.fetch(`${stack.identityUrl}${path}`, { method, headers: json, ...(data ? { data } : {}) });
  return { status: response.status(), body: response.status() === 204 ? null : await response.json() };
}

/** Signs up and verifies the address from the browser context's own cookie jar, as the console would. */
async function signUpVerified(request: APIRequestContext, email: string) {
  const registration = await callIdentity(request, 'GET', '/self-service/registration/browser');
  const registered = await callIdentity(request, 'POST', `/self-service/registration?flow=${registration.body.id}`, {
    method: 'password',
    traits: { email },
    password: 'a long and unusual passphrase 42',
    csrf_token: csrfOf(registration.body),
  });
  expect(registered.status).toBe(200);
  const verificationId = registered.body.continue_with.find((item: any) => item.action === 'show_verification_ui').flow.id;
  const outbox = await callIdentity(request, 'GET', `/dev/outbox?to=${encodeURIComponent(email)}`);
  const verified = await callIdentity(request, 'POST', `/self-service/verification?flow=${verificationId}`, { method: 'code', code: outbox.body.messages.at(-1).code });
  expect(verified.body.state).toBe('passed_challenge');
}

/** The screen's own content; the shell around it (the top bar) is checked by console-shell's spec. */
async function expectNoSeriousA11yViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).include('main').analyze();
  const serious = violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(serious.map(({ id, help, nodes }) => ({ id, help, targets: nodes.map((node) => node.target) }))).toEqual([]);
}

/** From /add-credits: the amount, Continue, the sandbox's card form, Complete purchase. */
async function payWithCard(page: Page, amount: string, cardNumber: string, { checkA11y = false } = {}) {
  await page.goto(`${stack.consoleUrl}/add-credits`);
  const amountInput = page.getByLabel('Amount');
  await amountInput.waitFor();
  if (checkA11y) await expectNoSeriousA11yViolations(page);
  await amountInput.fill(amount);
  await page.getByRole('button', { name: 'Continue' }).click();

  await page.getByLabel('Card number').waitFor();
  await page.getByText('Test mode — no real money is charged').waitFor();
  const credit = page.getByRole('table', { name: 'Order summary' }).getByRole('row', { name: /^Usage credit/ });
  await expect.poll(() => credit.textContent()).toContain(`$${Number(amount).toFixed(2)}`);
  if (checkA11y) await expectNoSeriousA11yViolations(page);

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
    await signUpVerified(context.request, `credits-${Date.now()}@example.com`);

    await payWithCard(page, '25', '4242 4242 4242 4242', { checkA11y: true });
    await page.getByText('Payment successful! Your credit was successfully refilled.').waitFor({ timeout: 15_000 });
    await expectNoSeriousA11yViolations(page);
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

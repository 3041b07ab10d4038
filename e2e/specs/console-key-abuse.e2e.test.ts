import OpenAI from 'openai';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

/**
 * A copied key, as its owner meets it in Chromium: limits set in the key's form, the worst case
 * shown beside the budget, a script calling with a forged Origin seen among the key's callers,
 * blocked from there, and refused on its next call.
 */
describe("a copied key's limits, callers and blocks on the dashboard in Chromium", () => {
  const email = `ada.abuse.${Date.now()}@example.com`;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await chromium.browser.newContext();
    page = await context.newPage();
    await signUp(context, email);
    // $25 of credit through the sandbox checkout, as the credits page would.
    const checkout = await context.request.post(`${stack.apiUrl}/bff/stripe/checkout-session`, { data: { amount: 25 }, headers: { origin: stack.consoleUrl } });
    const { checkoutSessionId, clientSecret } = await checkout.json();
    const confirmed = await context.request.post(`${stack.apiUrl}/sandbox/checkout-sessions/${checkoutSessionId}/confirm`, {
      data: { clientSecret, cardNumber: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' },
    });
    expect(confirmed.status()).toBe(202);
  });
  afterAll(async () => {
    await context?.close();
  });

  it(
    'sets models and caps, shows the worst case change, lists the script among the callers, blocks it, and its next call is refused',
    { timeout: 120_000 },
    async () => {
      await page.goto(`${stack.consoleUrl}/dashboard`);
      await page.getByRole('button', { name: 'New publishable key' }).click();
      const create = page.getByRole('dialog', { name: 'New publishable key' });
      await create.getByLabel('Name', { exact: true }).fill('Web app');
      await create.getByLabel('Allowed domain 1', { exact: true }).fill('https://shop.example.com');
      // Only the demo model, and 10 requests a minute per visitor address (the $1 a day stays).
      await create.getByLabel('Models', { exact: true }).click();
      await page.getByRole('option', { name: 'meterway-demo' }).click();
      await create.getByLabel('Requests per minute per visitor address', { exact: true }).fill('10');
      await create.getByRole('button', { name: 'Create key' }).click();
      const value = await create.getByLabel('Publishable key', { exact: true }).inputValue();
      await create.getByRole('button', { name: 'Done' }).click();
      await create.waitFor({ state: 'detached' });

      // The worst case if the key is copied today: what its budget has left, shown beside it; a lower budget lowers it.
      const row = page.getByRole('row').filter({ has: page.getByRole('button', { name: 'Edit key Web app', exact: true }) });
      await row.getByText('Worst case if copied today: $10.00').waitFor();
      await row.getByRole('button', { name: 'Edit key Web app', exact: true }).click();
      const edit = page.getByRole('dialog', { name: 'Edit publishable key' });
      await edit.getByLabel('Budget', { exact: true }).fill('4');
      await edit.getByRole('button', { name: 'Save' }).click();
      await edit.waitFor({ state: 'detached' });
      await row.getByText('Worst case if copied today: $4.00').waitFor();

      // A script that copied the key forges the allowed Origin: another model is refused, the allowed one answers.
      const script = new OpenAI({ baseURL: `${stack.apiUrl}/v1`, apiKey: value, maxRetries: 0, defaultHeaders: { origin: 'https://shop.example.com' } });
      const call = (model: string) =>
        script.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 16 }).then(
          () => 200,
          (error: unknown) => error,
        );
      expect(await call('gpt-4o')).toMatchObject({ status: 403, code: 'model_not_allowed' });
      expect(await call('meterway-demo')).toBe(200);
      expect(await call('meterway-demo')).toBe(200);

      // The key's callers (counted as the calls are settled, a moment after their answers): the script's address with its calls; blocked from there.
      const settledCalls = async () =>
        (await (await context.request.get(`${stack.apiUrl}/bff/chat-completions`, { headers: { origin: stack.consoleUrl } })).json()).items.length;
      await expect.poll(settledCalls, { timeout: 5_000 }).toBe(2);
      await row.getByRole('button', { name: 'Callers of Web app' }).click();
      const callers = page.getByRole('dialog', { name: 'Callers of Web app' });
      const addresses = callers.getByRole('table', { name: 'Client addresses' });
      const scriptRow = addresses.getByRole('row').nth(1);
      await scriptRow.waitFor();
      const cells = await scriptRow.getByRole('cell').allTextContents();
      expect(cells[1]).toBe('2');
      expect(cells[2]).toMatch(/^\$0\.\d+/);
      await scriptRow.getByRole('button', { name: `Block ${cells[0]}` }).click();
      await scriptRow.getByText('Blocked').waitFor();

      // Blocked at once: the script's next call is refused before anything reaches the model or is charged.
      expect(await call('meterway-demo')).toMatchObject({ status: 403, code: 'client_blocked' });
      expect(await settledCalls()).toBe(2);
    },
  );
});

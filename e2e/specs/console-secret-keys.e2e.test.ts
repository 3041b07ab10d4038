import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { seriousViolations } from '../support/axe.js';
import { signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

// Issue #23's acceptance: create a secret key in the console, call the gateway and the usage API
// with it from Node's fetch, see the call in the list filtered by that key.

const stack = inject('stack');
const chromium = useBrowser();

/** Creates a secret key of the scope on the dashboard; its value, shown this once. */
async function createSecretKey(page: Page, name: string, scope: 'Gateway' | 'Admin'): Promise<string> {
  await page.getByRole('button', { name: 'New secret key' }).click();
  const dialog = page.getByRole('dialog', { name: 'New secret key' });
  await dialog.getByLabel('Name', { exact: true }).fill(name);
  await dialog.getByRole('radio', { name: scope }).check();
  await dialog.getByRole('button', { name: 'Create key' }).click();
  const valueField = dialog.getByLabel('Secret key', { exact: true });
  await valueField.waitFor();
  expect(await valueField.isDisabled()).toBe(true);
  await dialog.getByText('this value will not be shown again', { exact: false }).waitFor();
  expect(await seriousViolations(page, { include: '[role="dialog"]' })).toEqual([]);
  const value = await valueField.inputValue();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await dialog.waitFor({ state: 'detached' });
  return value;
}

describe('secret keys in Chromium, used from a server', () => {
  it('creates a gateway key and an admin key, calls the gateway and the usage API with them, and finds the call under the key', async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    await signUp(context, `secret-keys-${Date.now()}@example.com`);

    // Credit to spend, through the sandbox's checkout.
    await page.goto(`${stack.consoleUrl}/add-credits`);
    await page.getByLabel('Amount').fill('5');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry (MM/YY)').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: 'Complete purchase' }).click();
    await page.getByText('Payment successful! Your credit was successfully refilled.').waitFor({ timeout: 15_000 });

    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByText('No secret keys yet').waitFor();
    const gatewayKey = await createSecretKey(page, 'Backend', 'Gateway');
    const adminKey = await createSecretKey(page, 'Reporting', 'Admin');
    expect(gatewayKey).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    const table = page.getByRole('table', { name: 'Secret keys' });
    await table.getByText(`${gatewayKey.slice(0, 12)}…`).waitFor();
    await table.getByText(`${adminKey.slice(0, 12)}…`).waitFor();
    // The value itself is never shown again.
    expect(await page.content()).not.toContain(gatewayKey);
    expect(await seriousViolations(page)).toEqual([]);
    await table.screenshot({ path: `${stack.dataDir}/secret-keys-table.png` });

    // From a server (Node's fetch sends no Origin): the gateway takes the gateway key.
    const completion = await fetch(`${stack.apiUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gatewayKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'meterway-demo', messages: [{ role: 'user', content: 'Hello from the server.' }], max_tokens: 10 }),
    });
    expect(completion.status).toBe(200);
    const { id: callId } = (await completion.json()) as { id: string };
    // The same key sent from a page is refused.
    const fromPage = await fetch(`${stack.apiUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gatewayKey}`, 'content-type': 'application/json', origin: 'https://shop.example.com' },
      body: JSON.stringify({ model: 'meterway-demo', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 10 }),
    });
    expect(fromPage.status).toBe(403);

    // The usage API with the admin key lists the call under the gateway key.
    const secretKeys = (await (await page.request.get(`${stack.apiUrl}/bff/secret-keys`, { headers: { origin: stack.consoleUrl } })).json()) as {
      secretKeys: { id: string; name: string }[];
    };
    const backend = secretKeys.secretKeys.find((key) => key.name === 'Backend')!;
    const usage = async () => {
      const response = await fetch(`${stack.apiUrl}/v1/organization/usage?secretKeyId=${backend.id}`, { headers: { authorization: `Bearer ${adminKey}` } });
      expect(response.status).toBe(200);
      return ((await response.json()) as { items: { id: string; secretKeyId: string | null; totalCost?: number }[] }).items;
    };
    await expect.poll(async () => (await usage()).map((item) => item.id), { timeout: 15_000 }).toEqual([callId]);
    const balance = await fetch(`${stack.apiUrl}/v1/organization/balance`, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(((await balance.json()) as { remainingSpendAmount: number }).remainingSpendAmount).toBeLessThan(5);

    // The console's list, filtered by that key, shows the call.
    await page.goto(`${stack.consoleUrl}/chat-completions`);
    await page.getByRole('combobox', { name: 'Key', exact: true }).click();
    await page.getByRole('option', { name: 'Backend (secret)' }).click();
    await page.waitForURL(new RegExp(`secretKeyId=${backend.id}`));
    const list = page.getByRole('table', { name: 'Chat completions' });
    // The header and that one call (polled: the list may render again as the filter settles).
    await expect.poll(async () => (await list.getByRole('row').allInnerTexts()).length, { timeout: 15_000 }).toBe(2);
    await list.getByText(callId, { exact: true }).waitFor();
    await context.close();
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { seriousViolations } from '../support/axe.js';
import { signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

// Issue #24's acceptance: the console's Models page and /v1/models show the prices the caller is
// charged, as the price list the stack runs on (apps/api/pricing.json) says.

const stack = inject('stack');
const chromium = useBrowser();

type ListedModel = { input: number; cachedInput?: number; output: number; maxOutputTokens: number; images?: object };
const priceList = JSON.parse(readFileSync(new URL('../../apps/api/pricing.json', import.meta.url), 'utf8')) as {
  version: string;
  margin?: number;
  models: Record<string, ListedModel>;
};
const demo = priceList.models['meterway-demo']!;
/** USD per 1M tokens as charged: the margin added, rounded up to whole nano-dollars per token (apps/api/src/gateway/pricing.ts). */
const charged = (usdPerMillion: number) => Math.ceil(usdPerMillion * 1000 * (1 + (priceList.margin ?? 0)) - 1e-9) / 1000;
const usd = (value: number) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(value);

describe('the Models page in Chromium', () => {
  it('lists the demo model at its listed prices, and /v1/models answers the same prices in x_meterway', async () => {
    const context = await chromium.browser.newContext();
    const page = await context.newPage();
    await signUp(context, `models-${Date.now()}@example.com`);

    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click();
    await page.getByRole('heading', { level: 1, name: 'Models' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/models');
    await page.getByText(`Prices as of ${priceList.version}.`).waitFor();
    await page.getByText('A price change applies to new calls only', { exact: false }).waitFor();

    const table = page.getByRole('table', { name: 'Models' });
    const row = table.getByRole('row').filter({ hasText: 'meterway-demo' });
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      'meterway-demo',
      usd(charged(demo.input)),
      demo.cachedInput === undefined ? 'Same as input' : usd(charged(demo.cachedInput)),
      usd(charged(demo.output)),
      demo.maxOutputTokens.toLocaleString('en-US'),
      demo.images ? 'Yes' : 'No',
    ]);
    expect(await table.getByRole('row').count()).toBe(Object.keys(priceList.models).length + 1);
    expect(await page.getByRole('link', { name: 'docs', exact: true }).getAttribute('href')).toBe(`${stack.apiUrl}/docs#models`);
    await page.screenshot({ path: '/tmp/screens/models.png', fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);

    // A browser app's view of the same list: a publishable key, called from one of its origins.
    const appOrigin = 'https://shop.example.com';
    const created = await page.request.post(`${stack.apiUrl}/bff/publishable-keys`, {
      headers: { origin: stack.consoleUrl },
      data: { name: 'Shop', budget: 10, budgetType: 'monthly', allowedOrigins: [appOrigin] },
    });
    expect(created.status()).toBe(201);
    const { value } = (await created.json()) as { value: string };
    const listed = await fetch(`${stack.apiUrl}/v1/models`, { headers: { authorization: `Bearer ${value}`, origin: appOrigin } });
    expect(listed.status).toBe(200);
    const { data } = (await listed.json()) as { data: { id: string; object: string; x_meterway: unknown }[] };
    expect(data.map((model) => model.id).sort()).toEqual(Object.keys(priceList.models).sort());
    expect(data.find((model) => model.id === 'meterway-demo')).toEqual({
      id: 'meterway-demo',
      object: 'model',
      created: 0,
      owned_by: 'meterway',
      x_meterway: {
        inputPrice: charged(demo.input),
        cachedInputPrice: demo.cachedInput === undefined ? null : charged(demo.cachedInput),
        outputPrice: charged(demo.output),
        maxOutputTokens: demo.maxOutputTokens,
        priceListVersion: priceList.version,
      },
    });
    await context.close();
  });
});

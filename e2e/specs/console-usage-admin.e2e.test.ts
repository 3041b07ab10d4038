import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { seriousViolations } from '../support/axe.js';
import { identitySession } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();
const root = join(import.meta.dirname, '../..');

/** `npm run admin -- …` against the running stack's DATA_DIR (through its operator socket), not the test run's DATABASE_URL. */
async function admin(...args: string[]) {
  const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'admin', '--', ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: stack.dataDir },
  });
  return stdout.trim();
}

/** A verified person, known to the api (GET /bff/me provisions them), with BFF calls from the console's origin. */
async function signUpPerson(prefix: string) {
  const email = `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const session = identitySession(stack.identityUrl);
  await session.signUp(email);
  const bff = (method: string, path: string, body?: unknown) => session.call(method, `${stack.apiUrl}${path}`, body, { origin: stack.consoleUrl });
  expect((await bff('GET', '/bff/me')).status).toBe(200);
  return { email, session, bff };
}

/** A browser page signed in as `person`: identity's cookies, which the console's calls to the api carry. */
async function signedInPage(browser: Browser, person: { session: { cookieHeader: () => string } }): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-US' });
  const cookies = person.session
    .cookieHeader()
    .split('; ')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      return { name: pair.slice(0, at), value: pair.slice(at + 1), url: stack.identityUrl, httpOnly: true, sameSite: 'Lax' as const };
    });
  await context.addCookies(cookies);
  return context.newPage();
}

// A shop's page on its own origin: it calls the gateway with the publishable key from its query.
const shopPage = `<!doctype html>
<html lang="en"><head><title>Shop</title></head><body><pre id="result">pending</pre>
<script type="module">
  const query = new URLSearchParams(location.search);
  const response = await fetch(query.get('api') + '/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + query.get('key'), 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'meterway-demo', messages: [{ role: 'user', content: 'Hello from the shop, please answer briefly' }] }),
  });
  const result = document.getElementById('result');
  result.textContent = JSON.stringify({ status: response.status, body: await response.json() });
  result.dataset.done = 'true';
</script></body></html>`;

let shop: Server;
let shopOrigin = '';

beforeAll(async () => {
  shop = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(shopPage));
  await new Promise<void>((resolve) => shop.listen(0, resolve));
  shopOrigin = `http://localhost:${(shop.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => shop?.close(resolve));
});

const tokens = new Intl.NumberFormat('en-US');
const cost = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 9 });

describe('usage and admin in the console', () => {
  it('a call from an allowed page shows on /chat-completions with its tokens and costs, and is charged', async () => {
    const person = await signUpPerson('usage');
    expect(await admin('grant-credit', person.email, '5', 'e2e usage')).toMatch(/^Granted \$5\.00 to /);
    expect((await person.bff('GET', '/bff/me')).body.remainingSpendAmount).toBe(5);
    const key = await person.bff('POST', '/bff/publishable-keys', { name: 'Shop', budget: 10, budgetType: 'monthly', allowedOrigins: [shopOrigin] });
    expect(key.status).toBe(201);

    const page = await signedInPage(chromium.browser, person);
    await page.goto(`${shopOrigin}/?api=${encodeURIComponent(stack.apiUrl)}&key=${encodeURIComponent(key.body.value)}`);
    await page.locator('#result[data-done="true"]').waitFor();
    const call = JSON.parse((await page.locator('#result').textContent()) ?? '');
    expect(call.status).toBe(200);

    // Settlement follows the answer by a moment.
    await expect.poll(async () => (await person.bff('GET', '/bff/chat-completions')).body.items.length, { timeout: 5_000 }).toBe(1);
    const row = (await person.bff('GET', '/bff/chat-completions')).body.items[0];
    expect(row).toMatchObject({
      id: call.body.id,
      model: 'meterway-demo',
      inputTokens: call.body.usage.prompt_tokens,
      outputTokens: call.body.usage.completion_tokens,
    });
    expect(row.totalCost).toBeGreaterThan(0);

    await page.goto(`${stack.consoleUrl}/chat-completions`);
    const tableRow = page.getByRole('row', { name: new RegExp(call.body.id) });
    await tableRow.waitFor();
    const cells = await tableRow.getByRole('cell').allTextContents();
    expect(cells[0]).toBe(call.body.id);
    expect(cells[1]).toMatch(/\b([01]\d|2[0-3]):[0-5]\d:[0-5]\d\b/);
    expect(cells.slice(2)).toEqual([
      'meterway-demo',
      // No end user (the key takes no end-user tokens), and the caller's network, never its address.
      '—',
      row.clientNetwork,
      tokens.format(row.estimatedInputTokens),
      tokens.format(row.inputTokens),
      cost.format(row.estimatedInputCost),
      cost.format(row.inputCost),
      tokens.format(row.outputTokens),
      cost.format(row.outputCost),
      cost.format(row.totalCost),
    ]);
    expect(await seriousViolations(page)).toEqual([]);

    const me = (await person.bff('GET', '/bff/me')).body;
    expect(me.remainingSpendAmount).toBeCloseTo(5 - row.totalCost, 9);
    const [shopKey] = (await person.bff('GET', '/bff/publishable-keys')).body.publishableKeys;
    expect(shopKey.currentPeriodSpendAmount).toBeCloseTo(row.totalCost, 9);
    await page.context().close();
  }, 120_000);

  it('the chart totals what each key paid, with its budget line, and the CSV download holds exactly the calls the filter shows', async () => {
    const person = await signUpPerson('insights');
    expect(await admin('grant-credit', person.email, '5', 'e2e insights')).toMatch(/^Granted \$5\.00 to /);
    const origin = 'https://shop.example';
    const created = await Promise.all(
      ['Shop', 'Blog'].map((name) => person.bff('POST', '/bff/publishable-keys', { name, budget: 10, budgetType: 'monthly', allowedOrigins: [origin] })),
    );
    const [shop, blog] = created.map((response) => response.body);
    // Outside a browser the Origin header is the caller's to set; the gateway checks it all the same.
    for (const value of [shop.value, shop.value, shop.value, blog.value]) {
      const call = await fetch(`${stack.apiUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${value}`, origin, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'meterway-demo', messages: [{ role: 'user', content: 'Hello, please answer briefly' }] }),
      });
      expect(call.status).toBe(200);
    }
    await expect.poll(async () => (await person.bff('GET', '/bff/chat-completions')).body.items.length, { timeout: 5_000 }).toBe(4);
    const rows: { id: string; publishableKeyId: string; totalCost: number }[] = (await person.bff('GET', '/bff/chat-completions')).body.items;
    const spentBy = (keyId?: string) => rows.filter((row) => !keyId || row.publishableKeyId === keyId).reduce((sum, row) => sum + row.totalCost, 0);

    const page = await signedInPage(chromium.browser, person);
    await page.goto(`${stack.consoleUrl}/chat-completions`);
    const totals = page.getByRole('group', { name: 'Usage totals' });
    const figure = async (label: string) => (await totals.getByText(label).locator('xpath=following-sibling::*[1]').textContent()) ?? '';
    await totals.waitFor();
    expect(await figure('Calls')).toBe('4');
    expect(Number((await figure('Total spend')).replace(/[$,]/g, ''))).toBeCloseTo(spentBy(), 9);
    expect(await page.locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('combobox', { name: 'Key', exact: true }).click();
    await page.getByRole('option', { name: 'Shop' }).click();
    await page.waitForURL(new RegExp(`publishableKeyId=${shop.id}`));
    await page.getByText('Monthly budget $10.00').waitFor();
    await expect.poll(() => figure('Calls')).toBe('3');
    expect(Number((await figure('Total spend')).replace(/[$,]/g, ''))).toBeCloseTo(spentBy(shop.id), 9);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^chat-completions-\d{4}-\d{2}-\d{2}\.csv$/);
    const [header, ...lines] = (await readFile((await download.path()) ?? '', 'utf8')).trim().split(/\r?\n/);
    expect(header).toMatch(/^ID,Created at,Model,/);
    expect(lines.map((line) => line.split(',')[0])).toEqual(rows.filter((row) => row.publishableKeyId === shop.id).map((row) => row.id));
    await page.context().close();
  }, 120_000);

  it('a system admin sees every user and all feedback; anyone else gets 403 and a clear message', async () => {
    const [chief, member] = await Promise.all([signUpPerson('admin'), signUpPerson('member')]);
    expect(await admin('grant', chief.email)).toBe(`${chief.email} is now a system admin.`);
    const description = `The usage table is lovely ${Date.now()}`;
    expect((await member.bff('POST', '/bff/feedback', { type: 'feature_request', description })).status).toBe(201);

    const forbidden = await member.bff('GET', '/admin/persons');
    expect(forbidden.status).toBe(403);

    const page = await signedInPage(chromium.browser, chief);
    await page.goto(`${stack.consoleUrl}/admin`);
    await page.getByRole('link', { name: 'Users' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.waitForURL(`${stack.consoleUrl}/admin/users`);
    const users = page.getByRole('table', { name: 'Users' });
    await users.getByRole('cell', { name: chief.email, exact: true }).waitFor();
    await users.getByRole('cell', { name: member.email, exact: true }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`${stack.consoleUrl}/admin/feedback`);
    const entry = page.getByRole('row', { name: new RegExp(description) });
    await entry.waitFor();
    expect((await entry.getByRole('cell').allTextContents()).slice(1)).toEqual([member.email, 'Feature request', description]);
    await page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: 'Admin' }).click();
    await page.waitForURL(`${stack.consoleUrl}/admin`);
    await page.context().close();

    const outsider = await signedInPage(chromium.browser, member);
    await outsider.goto(`${stack.consoleUrl}/admin/users`);
    await outsider.getByText('You do not have access to the admin area').waitFor();
    await outsider.context().close();
  }, 120_000);
});

import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { seriousViolations } from '../support/axe.js';
import { signUp } from '../support/browser-identity.js';
import { useBrowser } from '../support/browser.js';

const stack = inject('stack');
const chromium = useBrowser();

/** What the page's clipboard holds (the e2e project has no DOM types: the function runs in the page). */
const readClipboard = (page: Page) => page.evaluate('navigator.clipboard.readText()') as Promise<string>;

const localhostWarning = 'localhost is allowed: remove it before going to production.';

describe('publishable keys on the dashboard in Chromium', () => {
  const email = `ada.keys.${Date.now()}@example.com`;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    context = await chromium.browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.consoleUrl });
    page = await context.newPage();
    await signUp(context, email);
  });
  afterAll(async () => {
    await context?.close();
  });

  it('creates, copies, edits and deletes a key; axe finds nothing serious on the page or in its modals', { timeout: 120_000 }, async () => {
    await page.goto(`${stack.consoleUrl}/dashboard`);
    await page.getByText('No publishable keys added yet.').waitFor();
    await page.getByRole('link', { name: 'Add credits' }).waitFor();
    // Collected and asserted at the end, so one run reports every screen's violations.
    const violations: Record<string, string[]> = { dashboard: await seriousViolations(page) };

    // Create: localhost is there by default; one more origin is typed in.
    await page.getByRole('button', { name: 'New publishable key' }).click();
    const create = page.getByRole('dialog', { name: 'New publishable key' });
    await create.getByLabel('Name', { exact: true }).fill('Storefront');
    expect(await create.getByLabel('Allowed domain 1', { exact: true }).inputValue()).toBe('localhost');
    await create.getByRole('button', { name: 'Add domain' }).click();
    await create.getByLabel('Allowed domain 2', { exact: true }).fill('https://app.example.com');
    // Identical non-streamed calls within 10 minutes are answered from the cache (issue #24).
    await create.getByLabel('Response cache (seconds)', { exact: true }).fill('600');
    violations.createModal = await seriousViolations(page);
    await create.getByRole('button', { name: 'Create key' }).click();

    const valueField = create.getByLabel('Publishable key', { exact: true });
    await valueField.waitFor();
    expect(await valueField.isDisabled()).toBe(true);
    const value = await valueField.inputValue();
    expect(value).toMatch(/^pk_live_[0-9A-Za-z]{24,64}$/);
    violations.createdKey = await seriousViolations(page);
    await create.getByRole('button', { name: 'Copy publishable key' }).click();
    await page.getByRole('tooltip', { name: 'Copied' }).waitFor();
    expect(await readClipboard(page)).toBe(value);
    await create.getByRole('button', { name: 'Done' }).click();
    await create.waitFor({ state: 'detached' });

    // The table: truncated key, default budget, the cache, both origins and the localhost warning.
    const row = page.getByRole('row').filter({ has: page.getByRole('button', { name: 'Edit key Storefront', exact: true }) });
    await row.getByText(`${value.slice(0, 20)}...`).waitFor();
    expect(await row.getByText(value, { exact: true }).count()).toBe(0);
    expect(await row.getByText('$10 / month').isVisible()).toBe(true);
    expect(await row.getByText('Caches answers for 10 min').isVisible()).toBe(true);
    expect(await row.getByText('$0.00 spent this month').isVisible()).toBe(true);
    expect(await row.getByText('https://app.example.com').isVisible()).toBe(true);
    expect(await row.getByText(localhostWarning).isVisible()).toBe(true);
    violations.withKey = await seriousViolations(page);
    await row.getByRole('button', { name: 'Copy key Storefront' }).click();
    await page.getByRole('tooltip', { name: 'Copied' }).waitFor();
    expect(await readClipboard(page)).toBe(value);

    // Edit: a bigger budget, saved and shown in the row; the cache, left alone, stays.
    await row.getByText('$10 / month').click();
    const edit = page.getByRole('dialog', { name: 'Edit publishable key' });
    expect(await edit.getByLabel('Response cache (seconds)', { exact: true }).inputValue()).toBe('600');
    await edit.getByLabel('Budget', { exact: true }).fill('25');
    violations.editModal = await seriousViolations(page);
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Success!').first().waitFor();
    await edit.waitFor({ state: 'detached' });
    await row.getByText('$25 / month').waitFor();
    expect(await row.getByText('Caches answers for 10 min').isVisible()).toBe(true);

    // Delete with a reason: the key goes, the reason is sent as key_deletion feedback.
    await row.getByRole('button', { name: 'Edit key Storefront', exact: true }).click();
    await edit.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Publishable Key' });
    await confirm.getByText('Are you sure you want to delete the publishable key Storefront? This action cannot be undone.').waitFor();
    await confirm.getByLabel('Reason (optional)', { exact: true }).fill('Replaced by a server-side integration');
    violations.confirmModal = await seriousViolations(page);
    const feedback = page.waitForResponse((response) => response.url() === `${stack.apiUrl}/bff/feedback` && response.request().method() === 'POST');
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    const feedbackResponse = await feedback;
    expect(feedbackResponse.status()).toBe(201);
    expect(feedbackResponse.request().postDataJSON()).toEqual({ type: 'key_deletion', description: 'Replaced by a server-side integration' });
    await page.getByText('No publishable keys added yet.').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(violations).toEqual({ dashboard: [], createModal: [], createdKey: [], withKey: [], editModal: [], confirmModal: [] });
  });
});

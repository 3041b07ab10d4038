import type { Role } from '@meterway/contracts';
import { screen } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildPublishableKey, keysHandlers } from '../../testing/keys-handlers';
import { listsHandlers, pageOf } from '../../testing/lists-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { testRuntimeConfig } from '../../testing/runtime-config';
import { buildUsageDaily, usageHandlers } from '../../testing/usage-handlers';

// Issue #21: each role sees what it may use; every role sees the balance and the usage. A request
// a screen should not make for a role fails the test (no handler answers it).

const api = testRuntimeConfig.apiUrls['http://localhost:3000'];

beforeAll(() => Promise.all([import('./app-layout'), import('./dashboard'), import('./chat-completions')]), 30_000);

const signedInAs = (role: Role) =>
  meHandlers.signedIn({ role, remainingSpendAmount: 25, organizations: [{ organizationId: 'org_01', organizationName: 'Analytical Engines', role }] });

/** Records whether the alert settings were asked for (the api refuses them to developers). */
function watchAlertSettings() {
  const asked: string[] = [];
  const handler = http.get(`${api}/bff/alert-settings`, ({ request }) => {
    asked.push(request.url);
    return HttpResponse.json({ lowBalance: 5, keyBudgetPercents: [] });
  });
  return { handler, asked };
}

describe('/dashboard by role', () => {
  it('shows a developer the balance and the shared keys, but not Add credits, Invoices or the alerts', async () => {
    const alertSettings = watchAlertSettings();
    server.use(signedInAs('developer'), keysHandlers.list([buildPublishableKey()]), keysHandlers.models(), keysHandlers.blocks(), alertSettings.handler);
    renderRoute('/dashboard');

    expect(await screen.findByRole('button', { name: 'Edit key Web app' })).toBeInTheDocument();
    expect(screen.getByText('$25.00')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'New publishable key' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Add credits' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Invoices' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Alerts' })).not.toBeInTheDocument();
    expect(alertSettings.asked).toEqual([]);
  });

  it('shows billing the balance, Add credits, Invoices and the alerts, but not the keys', async () => {
    server.use(signedInAs('billing'));
    renderRoute('/dashboard');

    expect(await screen.findByRole('link', { name: 'Add credits' })).toBeInTheDocument();
    expect(screen.getByText('$25.00')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Invoices' })).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Save alerts' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Publishable keys' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'New publishable key' })).not.toBeInTheDocument();
  });

  it.each(['owner', 'admin'] as const)('shows an %s everything', async (role) => {
    server.use(signedInAs(role), keysHandlers.list([buildPublishableKey()]), keysHandlers.models(), keysHandlers.blocks());
    renderRoute('/dashboard');

    expect(await screen.findByRole('button', { name: 'Edit key Web app' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Add credits' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Invoices' })).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Save alerts' })).toBeInTheDocument();
  });
});

describe('/chat-completions by role', () => {
  it('shows billing the usage without the key filter, and lists no keys; the chart still splits spend by key name', async () => {
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue(DOMRect.fromRect({ width: 800, height: 280 }));
    const keyId = '6f1d2c3b-4a59-4e68-8d7c-1b2a3c4d5e6f';
    const empty = buildUsageDaily();
    const usage = buildUsageDaily({
      days: empty.days.map((day, i) =>
        i < 29
          ? { ...day, costByModel: { 'gpt-4o-mini': 0 }, costByKey: { [keyId]: 0 } }
          : { ...day, costByModel: { 'gpt-4o-mini': 2 }, costByKey: { [keyId]: 2 }, cost: 2, calls: 4, monthToDateCost: 2 },
      ),
      models: ['gpt-4o-mini'],
      keys: [{ id: keyId, name: 'Web app', deleted: false }],
      totals: { cost: 2, calls: 4, inputTokens: 0, outputTokens: 0 },
    });
    server.use(signedInAs('billing'), usageHandlers.daily(usage), listsHandlers.chatCompletions(pageOf([])));
    const { user } = renderRoute('/chat-completions');

    expect(await screen.findByText('No chat completions found')).toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: 'Key' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeInTheDocument();
    await user.click(await screen.findByRole('radio', { name: 'By key' }));
    expect(await screen.findByText('Web app')).toBeInTheDocument();
  });
});

describe('/add-credits by role', () => {
  it('tells a developer who opens it that only owners, admins and billing add credits', async () => {
    server.use(signedInAs('developer'));
    renderRoute('/add-credits');

    expect(await screen.findByText('Only owners, admins and billing members add credits.')).toBeInTheDocument();
  });
});

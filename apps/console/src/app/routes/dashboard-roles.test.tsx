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
  it('shows billing the usage without the key filter, and lists no keys', async () => {
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue(DOMRect.fromRect({ width: 800, height: 280 }));
    server.use(signedInAs('billing'), usageHandlers.daily(buildUsageDaily()), listsHandlers.chatCompletions(pageOf([])));
    renderRoute('/chat-completions');

    expect(await screen.findByText('No chat completions found')).toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: 'Publishable key' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeInTheDocument();
  });
});

describe('/add-credits by role', () => {
  it('tells a developer who opens it that only owners, admins and billing add credits', async () => {
    server.use(signedInAs('developer'));
    renderRoute('/add-credits');

    expect(await screen.findByText('Only owners, admins and billing members add credits.')).toBeInTheDocument();
  });
});

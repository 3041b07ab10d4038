import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { alertsHandlers } from '../../testing/alerts-handlers';
import { withFakeTimers } from '../../testing/fake-timers';
import { buildPublishableKey, keysHandlers, type RecordedRequest } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

// The first render imports Mantine and the route modules; warm them so no test pays that in its timeouts.
beforeAll(async () => {
  await Promise.all([import('./app-layout'), import('./dashboard')]);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

const webApp = buildPublishableKey();
const created = buildPublishableKey({
  id: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  name: 'Checkout',
  value: 'pk_live_Zy8Xw7Vu6Ts5Rq4Po3Nm2Lk1Jh0GfEd',
  currentPeriodSpendAmount: 0,
  allowedOrigins: ['localhost', 'http://localhost:3000', 'https://shop.example.com'],
});

/** The dashboard of a signed-in user with $25 of credit and these keys (and the priced models the key form lists). */
function renderDashboard(keys: Parameters<typeof keysHandlers.list>[0] = [webApp]) {
  server.use(meHandlers.signedIn({ remainingSpendAmount: 25 }), keysHandlers.list(keys), keysHandlers.models(), keysHandlers.blocks());
  return renderRoute('/dashboard');
}

const keysTable = () => screen.getByRole('table', { name: 'Publishable keys' });
const rowOf = async (name: string) => (await screen.findByRole('button', { name: `Edit key ${name}` })).closest('tr') as HTMLElement;
const toast = (title: 'Wooops!' | 'Success!') => screen.findByText(title).then((element) => element.closest('.mantine-Notification-root') as HTMLElement);

describe('/dashboard: credit balance and invoices', () => {
  it('shows the remaining credit as money, with an Add credits link', async () => {
    renderDashboard();

    expect(await screen.findByText('$25.00')).toBeInTheDocument();
    expect(screen.getByText('Credit balance')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Add credits' })).toHaveAttribute('href', '/add-credits');
  });

  it('shows no owed notice when nothing is owed', async () => {
    renderDashboard();
    expect(await screen.findByText('$25.00')).toBeInTheDocument();
    expect(screen.queryByText(/owes/)).not.toBeInTheDocument();
  });

  it('shows what a refund or dispute left owing near the balance', async () => {
    server.use(meHandlers.signedIn({ remainingSpendAmount: 0, owedAmount: 7.5 }), keysHandlers.list([webApp]), keysHandlers.models(), keysHandlers.blocks());
    renderRoute('/dashboard');

    const notice = (await screen.findByText('Your organisation owes $7.50')).closest('[role="status"]') as HTMLElement;
    expect(notice).toHaveTextContent('A refund or dispute took back credit that had already been spent, or calls cost more than the credit left.');
    expect(notice).toHaveTextContent(
      'Gateway calls, with publishable and secret keys alike, are refused until this is paid: the next credits you add pay it first.',
    );
    expect(screen.getByText('$0.00')).toBeInTheDocument();
  });

  it('sends the browser to the customer portal, the button loading meanwhile', async () => {
    const assign = vi.fn();
    vi.stubGlobal('location', { ...window.location, origin: window.location.origin, assign });
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.customerPortal({ requests, url: 'https://billing.example.com/p/session_42' }));
    const { user } = renderDashboard();

    const invoices = await screen.findByRole('button', { name: 'Invoices' });
    await user.click(invoices);

    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://billing.example.com/p/session_42'));
    expect(requests).toEqual([{}]);
    expect(invoices).toHaveAttribute('data-loading', 'true');
  });

  it("shows a 'Wooops!' toast when the portal cannot be opened", async () => {
    server.use(keysHandlers.customerPortal({ failure: 500 }));
    const { user } = renderDashboard();

    await user.click(await screen.findByRole('button', { name: 'Invoices' }));

    expect(within(await toast('Wooops!')).getByText('Internal Server Error')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Invoices' })).not.toHaveAttribute('data-loading');
  });
});

describe('/dashboard: publishable keys table', () => {
  it('shows "Loading..." until the keys arrive, then one row per key', async () => {
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    server.use(meHandlers.signedIn(), keysHandlers.list([webApp], { until: answered }));
    renderRoute('/dashboard');

    expect(await screen.findByText('Loading...')).toBeInTheDocument();
    answer();
    expect(await screen.findByRole('button', { name: 'Edit key Web app' })).toBeInTheDocument();
    expect(screen.queryByText('Loading...')).not.toBeInTheDocument();
  });

  it('has the columns Name, Key, Budget, Current period spend, Allowed domains', async () => {
    renderDashboard();

    await screen.findByRole('button', { name: 'Edit key Web app' });
    expect(
      within(keysTable())
        .getAllByRole('columnheader')
        .map((header) => header.textContent),
    ).toEqual(['Name', 'Key', 'Budget', 'Current period spend', 'Allowed domains']);
  });

  it('says so when there are no keys', async () => {
    renderDashboard([]);

    expect(await screen.findByText('No publishable keys added yet.')).toBeInTheDocument();
  });

  it('keeps budget and spend on one line, so wide screens never wrap "$10 / month"', async () => {
    renderDashboard();

    const row = await rowOf('Web app');

    // The budget cell, with the worst case and caps lines under the budget.
    expect(within(row).getByText('$10 / month').closest('td')).toHaveStyle({ whiteSpace: 'nowrap' });
    expect(within(row).getByText(/spent this month$/)).toHaveStyle({ whiteSpace: 'nowrap' });
  });

  it('shows a key truncated to 20 characters, its budget, its spend and its domains', async () => {
    renderDashboard([buildPublishableKey({ allowedOrigins: ['https://app.example.com', 'https://www.example.com'] })]);

    const row = within(await rowOf('Web app'));
    expect(row.getByText('pk_live_4fQx9LmN2pR7...')).toBeInTheDocument();
    expect(row.queryByText(webApp.value, { exact: false })).not.toBeInTheDocument();
    expect(row.getByText('$10 / month')).toBeInTheDocument();
    expect(row.getByText('$0.42 spent this month')).toHaveAttribute('title', '$0.42');
    expect(row.getByText('https://app.example.com')).toBeInTheDocument();
    expect(row.getByText('https://www.example.com')).toBeInTheDocument();
    expect(row.queryByText(/localhost is allowed/)).not.toBeInTheDocument();
    expect(row.queryByText(/No allowed domains/)).not.toBeInTheDocument();
  });

  it('shows cents of a budget that has them', async () => {
    renderDashboard([buildPublishableKey({ spendLimitAmount: 12.5, currentPeriodSpendAmount: 3 })]);

    const row = within(await rowOf('Web app'));
    expect(row.getByText('$12.50 / month')).toBeInTheDocument();
    expect(row.getByText('$3.00 spent this month')).toBeInTheDocument();
  });

  it('shows the spend of a few small calls to the fraction of a cent, and all of it on hover', async () => {
    renderDashboard([buildPublishableKey({ currentPeriodSpendAmount: 0.003147 })]);

    const row = within(await rowOf('Web app'));
    expect(row.getByText('$0.0031 spent this month')).toHaveAttribute('title', '$0.003147');
  });

  it('warns about a key without allowed domains and about one that allows localhost', async () => {
    renderDashboard([
      buildPublishableKey({ id: '11111111-1111-4111-8111-111111111111', name: 'Open key', allowedOrigins: [] }),
      buildPublishableKey({ id: '22222222-2222-4222-8222-222222222222', name: 'Dev key', allowedOrigins: ['localhost', 'https://app.example.com'] }),
      buildPublishableKey({ id: '33333333-3333-4333-8333-333333333333', name: 'Port key', allowedOrigins: ['http://localhost:5173'] }),
    ]);

    const open = within(await rowOf('Open key'));
    expect(open.getByText('No allowed domains: for security, configure at least one so that only your sites can use this key.')).toBeInTheDocument();
    expect(open.queryByText('localhost is allowed: remove it before going to production.')).not.toBeInTheDocument();

    const dev = within(await rowOf('Dev key'));
    expect(dev.getByText('localhost is allowed: remove it before going to production.')).toBeInTheDocument();
    expect(dev.queryByText(/No allowed domains/)).not.toBeInTheDocument();

    expect(within(await rowOf('Port key')).getByText('localhost is allowed: remove it before going to production.')).toBeInTheDocument();
  });

  describe('with fake timers', () => {
    const advance = withFakeTimers();

    it('copies the whole key; the tooltip says "Copied" for 2 seconds and the row stays closed', async () => {
      const { user } = renderDashboard();

      const row = within(await rowOf('Web app'));
      await user.click(row.getByRole('button', { name: 'Copy key Web app' }));

      expect(await navigator.clipboard.readText()).toBe(webApp.value);
      expect(screen.getByRole('tooltip')).toHaveTextContent('Copied');
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

      await advance(1500);
      expect(screen.getByText('Copied')).toBeInTheDocument();
      await advance(500);
      await waitFor(() => expect(screen.queryByText('Copied')).not.toBeInTheDocument());
    });
  });

  it("shows a 'Wooops!' toast when the keys cannot be loaded", async () => {
    server.use(meHandlers.signedIn(), keysHandlers.listFailure(500));
    renderRoute('/dashboard');

    expect(within(await toast('Wooops!')).getByText('Failed to load publishable keys')).toBeInTheDocument();
    expect(within(keysTable()).getByText('Failed to load publishable keys')).toBeInTheDocument();
  });
});

// Typing into the controlled form re-renders it per key; these tests take longer than the default 5 s.
describe('/dashboard: creating a key', { timeout: 20_000 }, () => {
  async function openCreate(user: ReturnType<typeof renderRoute>['user']) {
    await user.click(await screen.findByRole('button', { name: 'New publishable key' }));
    return within(await screen.findByRole('dialog', { name: 'New publishable key' }));
  }

  it('starts with a $10 budget and localhost allowed; the suggestions add what is missing', async () => {
    const { user } = renderDashboard();
    const dialog = await openCreate(user);

    expect(dialog.getByLabelText('Name')).toHaveValue('');
    expect(dialog.getByLabelText('Budget')).toHaveValue('$10');
    expect(dialog.getAllByRole('textbox', { name: /^Allowed domain \d+$/ }).map((input) => (input as HTMLInputElement).value)).toEqual(['localhost']);
    expect(dialog.getByRole('button', { name: 'Add localhost' })).toBeDisabled();

    await user.click(dialog.getByRole('button', { name: 'Add http://localhost:3000' }));

    expect(dialog.getByLabelText('Allowed domain 2')).toHaveValue('http://localhost:3000');
    expect(dialog.getByRole('button', { name: 'Add http://localhost:3000' })).toBeDisabled();

    await user.click(dialog.getByRole('button', { name: 'Remove allowed domain 1' }));

    expect(dialog.getByLabelText('Allowed domain 1')).toHaveValue('http://localhost:3000');
    expect(dialog.queryByLabelText('Allowed domain 2')).not.toBeInTheDocument();
    expect(dialog.getByRole('button', { name: 'Add localhost' })).toBeEnabled();
  });

  it('creates the key, then shows its value in a disabled field with a copy button', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.create(created, { requests }));
    const { user } = renderDashboard([[webApp], [webApp, created]]);
    const dialog = await openCreate(user);

    await user.type(dialog.getByLabelText('Name'), '  Checkout  ');
    await user.click(dialog.getByRole('button', { name: 'Add http://localhost:3000' }));
    await user.click(dialog.getByRole('button', { name: 'Add domain' }));
    await user.click(dialog.getByRole('button', { name: 'Add domain' }));
    await user.click(dialog.getByLabelText('Allowed domain 4'));
    await user.paste('https://shop.example.com');
    await user.click(dialog.getByRole('button', { name: 'Create key' }));

    const value = await dialog.findByLabelText('Publishable key');
    expect(requests).toEqual([
      {
        body: {
          name: 'Checkout',
          budget: 10,
          budgetType: 'monthly',
          // The blank third row is left out.
          allowedOrigins: ['localhost', 'http://localhost:3000', 'https://shop.example.com'],
          // A new key's limits: every priced model, the model's own output maximum, 30 requests a minute and $1 a day per address.
          allowedModels: null,
          maxOutputTokensPerCall: null,
          perClientLimits: { requestsPerMinute: 30, spendPerDay: 1 },
          // No cap per end user, and no end-user tokens: each client address is an anonymous end user.
          perEndUserLimits: { requestsPerMinute: null, spendPerDay: null, spendPerMonth: null },
          endUserTokens: null,
          // No response cache: every call goes to a provider.
          responseCacheSeconds: null,
          responseCacheShared: false,
        },
      },
    ]);
    expect(value).toHaveValue(created.value);
    expect(value).toBeDisabled();
    expect(dialog.queryByLabelText('Name')).not.toBeInTheDocument();

    await user.click(dialog.getByRole('button', { name: 'Copy publishable key' }));

    expect(await navigator.clipboard.readText()).toBe(created.value);
    expect(screen.getByRole('tooltip')).toHaveTextContent('Copied');

    await user.click(dialog.getByRole('button', { name: 'Done' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(await screen.findByRole('button', { name: 'Edit key Checkout' })).toBeInTheDocument();
  });

  it('opens again on a fresh form after a key was created', async () => {
    server.use(keysHandlers.create(created));
    const { user } = renderDashboard();
    let dialog = await openCreate(user);
    await user.type(dialog.getByLabelText('Name'), 'Checkout');
    await user.click(dialog.getByRole('button', { name: 'Create key' }));
    await user.click(await dialog.findByRole('button', { name: 'Done' }));

    dialog = await openCreate(user);

    expect(dialog.getByLabelText('Name')).toHaveValue('');
    expect(dialog.getByLabelText('Allowed domain 1')).toHaveValue('localhost');
  });

  it.each([
    ['an empty name', { name: '   ' }, 'Name', 'This field is required'],
    ['a name shorter than 3 after trimming', { name: ' ab ' }, 'Name', 'Minimum length is 3'],
    ['a name longer than 100', { name: 'k'.repeat(101) }, 'Name', 'Maximum length is 100'],
    ['an empty budget', { budget: '' }, 'Budget', 'This field is required'],
    ['a negative budget', { budget: '-1' }, 'Budget', 'Minimum is 0'],
    ['a budget above the maximum', { budget: '1000001' }, 'Budget', 'Maximum is 1000000'],
  ])('refuses %s', async (_case, fields: { name?: string; budget?: string }, label, message) => {
    const { user } = renderDashboard();
    const dialog = await openCreate(user);

    await user.click(dialog.getByLabelText('Name'));
    await user.paste(fields.name ?? 'Checkout');
    if (fields.budget !== undefined) {
      await user.clear(dialog.getByLabelText('Budget'));
      if (fields.budget) await user.type(dialog.getByLabelText('Budget'), fields.budget);
    }
    await user.click(dialog.getByRole('button', { name: 'Create key' }));

    // No request is made: an unhandled POST would fail the test.
    expect(dialog.getByLabelText(label)).toHaveAccessibleDescription(expect.stringContaining(message));
    expect(dialog.getByRole('button', { name: 'Create key' })).toBeInTheDocument();
  });

  it('refuses a domain that is neither http(s) nor localhost, and accepts as many as given', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.create(created, { requests }));
    const { user } = renderDashboard();
    const dialog = await openCreate(user);
    await user.type(dialog.getByLabelText('Name'), 'Checkout');
    await user.click(dialog.getByRole('button', { name: 'Add domain' }));
    await user.type(dialog.getByLabelText('Allowed domain 2'), 'shop.example.com');

    await user.click(dialog.getByRole('button', { name: 'Create key' }));

    expect(dialog.getByRole('alert')).toHaveTextContent('All items must start with http:// or https://');
    expect(dialog.getByLabelText('Allowed domain 2')).toBeInvalid();
    expect(dialog.getByLabelText('Allowed domain 1')).toBeValid();
    expect(requests).toEqual([]);

    await user.clear(dialog.getByLabelText('Allowed domain 2'));
    await user.paste('https://shop.example.com');
    const many = Array.from({ length: 5 }, (_, index) => `https://site${index}.example.com`);
    for (const [index, origin] of many.entries()) {
      await user.click(dialog.getByRole('button', { name: 'Add domain' }));
      await user.click(dialog.getByLabelText(`Allowed domain ${index + 3}`));
      await user.paste(origin);
    }
    await user.click(dialog.getByRole('button', { name: 'Create key' }));

    expect(await dialog.findByLabelText('Publishable key')).toBeInTheDocument();
    expect((requests[0]?.body as { allowedOrigins: string[] }).allowedOrigins).toEqual(['localhost', 'https://shop.example.com', ...many]);
  });

  it("shows 'Failed to create publishable key' in a 'Wooops!' toast and keeps the form", async () => {
    server.use(keysHandlers.create(created, { failure: 500 }));
    const { user } = renderDashboard();
    const dialog = await openCreate(user);
    await user.type(dialog.getByLabelText('Name'), 'Checkout');

    await user.click(dialog.getByRole('button', { name: 'Create key' }));

    expect(within(await toast('Wooops!')).getByText('Failed to create publishable key')).toBeInTheDocument();
    expect(dialog.getByLabelText('Name')).toHaveValue('Checkout');
    expect(dialog.queryByLabelText('Publishable key')).not.toBeInTheDocument();
  });
});

describe('/dashboard: editing and deleting a key', { timeout: 20_000 }, () => {
  async function openEdit(user: ReturnType<typeof renderRoute>['user'], name = 'Web app') {
    await user.click(within(await rowOf(name)).getByText('$10 / month'));
    return within(await screen.findByRole('dialog', { name: 'Edit publishable key' }));
  }

  it("opens a row's key with its values, also from the keyboard", async () => {
    const { user } = renderDashboard([buildPublishableKey({ allowedOrigins: ['https://app.example.com', 'localhost'] })]);

    const name = await screen.findByRole('button', { name: 'Edit key Web app' });
    for (let presses = 0; presses < 30 && document.activeElement !== name; presses++) await user.tab();
    expect(name).toHaveFocus();
    await user.keyboard('{Enter}');

    const dialog = within(await screen.findByRole('dialog', { name: 'Edit publishable key' }));
    expect(dialog.getByLabelText('Name')).toHaveValue('Web app');
    expect(dialog.getByLabelText('Budget')).toHaveValue('$10');
    expect(dialog.getByLabelText('Allowed domain 1')).toHaveValue('https://app.example.com');
    expect(dialog.getByLabelText('Allowed domain 2')).toHaveValue('localhost');
  });

  it("saves with PUT, closes, shows 'Success!' and the updated row", async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.update({ requests }));
    const { user } = renderDashboard([[webApp], [buildPublishableKey({ spendLimitAmount: 25 })]]);
    const dialog = await openEdit(user);

    await user.clear(dialog.getByLabelText('Budget'));
    await user.type(dialog.getByLabelText('Budget'), '25');
    await user.click(dialog.getByRole('button', { name: 'Save' }));

    expect(await toast('Success!')).toBeInTheDocument();
    expect(requests).toEqual([
      {
        id: webApp.id,
        body: {
          name: 'Web app',
          budget: 25,
          budgetType: 'monthly',
          allowedOrigins: ['https://app.example.com'],
          // The limits are sent as they are, so a PUT never leaves one out.
          allowedModels: null,
          maxOutputTokensPerCall: null,
          perClientLimits: { requestsPerMinute: 30, spendPerDay: 1 },
          perEndUserLimits: { requestsPerMinute: null, spendPerDay: null, spendPerMonth: null },
          endUserTokens: null,
          responseCacheSeconds: null,
          responseCacheShared: false,
        },
      },
    ]);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(await within(await rowOf('Web app')).findByText('$25 / month')).toBeInTheDocument();
  });

  it("shows 'Failed to update publishable key' in a 'Wooops!' toast and stays open", async () => {
    server.use(keysHandlers.update({ failure: 500 }));
    const { user } = renderDashboard();
    const dialog = await openEdit(user);

    await user.click(dialog.getByRole('button', { name: 'Save' }));

    expect(within(await toast('Wooops!')).getByText('Failed to update publishable key')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Edit publishable key' })).toBeInTheDocument();
  });

  it('asks before deleting; Cancel goes back to the key', async () => {
    const { user } = renderDashboard();
    const dialog = await openEdit(user);

    await user.click(dialog.getByRole('button', { name: 'Delete' }));

    const confirm = within(await screen.findByRole('dialog', { name: 'Delete Publishable Key' }));
    expect(confirm.getByText('Are you sure you want to delete the publishable key Web app? This action cannot be undone.')).toBeInTheDocument();
    expect(confirm.getByLabelText('Reason (optional)')).toHaveValue('');

    await user.click(confirm.getByRole('button', { name: 'Cancel' }));

    expect(await screen.findByRole('dialog', { name: 'Edit publishable key' })).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Delete Publishable Key' })).not.toBeInTheDocument();
  });

  it("deletes without a reason: DELETE only, then 'Success!' and the key is gone", async () => {
    const deletions: RecordedRequest[] = [];
    server.use(keysHandlers.remove({ requests: deletions }));
    const { user } = renderDashboard([[webApp], []]);
    await user.click((await openEdit(user)).getByRole('button', { name: 'Delete' }));

    const confirm = within(await screen.findByRole('dialog', { name: 'Delete Publishable Key' }));
    await user.click(confirm.getByRole('button', { name: 'Delete' }));

    expect(await toast('Success!')).toBeInTheDocument();
    // No feedback is sent: an unhandled POST /bff/feedback would fail the test.
    expect(deletions).toEqual([{ id: webApp.id }]);
    expect(await screen.findByText('No publishable keys added yet.')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('deletes with a reason: DELETE with the reason (for the audit log), then the reason as key_deletion feedback', async () => {
    const deletions: RecordedRequest[] = [];
    const feedback: RecordedRequest[] = [];
    server.use(keysHandlers.remove({ requests: deletions }), keysHandlers.feedback({ requests: feedback }));
    const { user } = renderDashboard([[webApp], []]);
    await user.click((await openEdit(user)).getByRole('button', { name: 'Delete' }));

    const confirm = within(await screen.findByRole('dialog', { name: 'Delete Publishable Key' }));
    await user.type(confirm.getByLabelText('Reason (optional)'), '  Moved to a new app  ');
    await user.click(confirm.getByRole('button', { name: 'Delete' }));

    expect(await toast('Success!')).toBeInTheDocument();
    expect(deletions).toEqual([{ id: webApp.id, body: { reason: 'Moved to a new app' } }]);
    await waitFor(() => expect(feedback).toEqual([{ body: { type: 'key_deletion', description: 'Moved to a new app' } }]));
  });

  it("shows 'Failed to delete publishable key' in a 'Wooops!' toast and sends no reason", async () => {
    server.use(keysHandlers.remove({ failure: 500 }));
    const { user } = renderDashboard();
    await user.click((await openEdit(user)).getByRole('button', { name: 'Delete' }));

    const confirm = within(await screen.findByRole('dialog', { name: 'Delete Publishable Key' }));
    await user.type(confirm.getByLabelText('Reason (optional)'), 'Not needed');
    await user.click(confirm.getByRole('button', { name: 'Delete' }));

    expect(within(await toast('Wooops!')).getByText('Failed to delete publishable key')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Delete Publishable Key' })).toBeInTheDocument();
  });
});

describe('/dashboard: e-mail alerts', { timeout: 20_000 }, () => {
  const lowBalance = () => screen.findByRole('textbox', { name: 'Low balance' });
  const percentages = () => screen.getByRole('combobox', { name: 'Key budget percentages' });
  const pills = (card: HTMLElement) => [...card.querySelectorAll('.mantine-TagsInput-pill')].map((pill) => pill.textContent);
  const alertsCard = async () => (await lowBalance()).closest('form') as HTMLElement;

  it('shows the current threshold and percentages', async () => {
    server.use(alertsHandlers.get({ lowBalance: 12.5, keyBudgetPercents: [25, 90] }));
    renderDashboard();

    expect(await lowBalance()).toHaveValue('$12.5');
    expect(pills(await alertsCard())).toEqual(['25', '90']);
  });

  it('saves the edited values and says so', async () => {
    const requests: RecordedRequest[] = [];
    server.use(alertsHandlers.update({ requests }));
    const { user } = renderDashboard();

    await user.clear(await lowBalance());
    await user.type(await lowBalance(), '20');
    await user.click(percentages());
    await user.keyboard('{Backspace}');
    await user.type(percentages(), '95{Enter}');
    await user.click(screen.getByRole('button', { name: 'Save alerts' }));

    expect(within(await toast('Success!')).getByText('Alert settings saved')).toBeInTheDocument();
    expect(requests).toEqual([{ body: { lowBalance: 20, keyBudgetPercents: [50, 80, 95] } }]);
  });

  it('names what is wrong in each field and sends nothing', async () => {
    const requests: RecordedRequest[] = [];
    server.use(alertsHandlers.update({ requests }));
    const { user } = renderDashboard();

    await user.clear(await lowBalance());
    await user.type(await lowBalance(), '20000');
    await user.type(percentages(), 'often{Enter}');
    await user.click(screen.getByRole('button', { name: 'Save alerts' }));

    expect(await screen.findByText('Maximum is 10000')).toBeInTheDocument();
    expect(screen.getByText('Each percentage must be a whole number from 1 to 100')).toBeInTheDocument();

    await user.clear(await lowBalance());
    await user.click(screen.getByRole('button', { name: 'Save alerts' }));
    expect(await screen.findByText('This field is required')).toBeInTheDocument();
    expect(requests).toEqual([]);
  });

  it("shows a 'Wooops!' toast when the api refuses, keeping the edits", async () => {
    server.use(alertsHandlers.update({ failure: 500 }));
    const { user } = renderDashboard();

    await user.clear(await lowBalance());
    await user.type(await lowBalance(), '7');
    await user.click(screen.getByRole('button', { name: 'Save alerts' }));

    expect(within(await toast('Wooops!')).getByText('Failed to save alert settings')).toBeInTheDocument();
    expect(await lowBalance()).toHaveValue('$7');
  });
});

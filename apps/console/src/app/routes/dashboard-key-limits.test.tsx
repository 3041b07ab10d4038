import { defaultPerClientLimits, maxClientRequestsPerMinute, maxKeyBudget, maxOutputTokensPerCallLimit, maxResponseCacheSeconds } from '@meterway/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { keyWarningTexts } from '../../features/keys/components/key-warnings';
import { buildPublishableKey, keysHandlers, pricedModels, type RecordedRequest } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

// The limits for a copied key (issue #18): models, output tokens per call, requests per minute and spend per day per address.

// The first render imports Mantine and the route modules; warm them so no test pays that in its timeouts.
beforeAll(async () => {
  await Promise.all([import('./app-layout'), import('./dashboard')]);
});

const webApp = buildPublishableKey();
const limited = buildPublishableKey({
  allowedModels: ['gpt-4o-mini'],
  maxOutputTokensPerCall: 1024,
  perClientLimits: { requestsPerMinute: 60, spendPerDay: 5 },
});

function renderDashboard(keys: Parameters<typeof keysHandlers.list>[0] = [webApp], models = keysHandlers.models()) {
  server.use(meHandlers.signedIn(), keysHandlers.list(keys), models, keysHandlers.blocks());
  return renderRoute('/dashboard');
}

type User = ReturnType<typeof renderRoute>['user'];

const rowOf = async (name: string) => (await screen.findByRole('button', { name: `Edit key ${name}` })).closest('tr') as HTMLElement;
const toast = (title: 'Wooops!' | 'Success!') => screen.findByText(title).then((element) => element.closest('.mantine-Notification-root') as HTMLElement);
const pills = (dialog: HTMLElement) => [...dialog.querySelectorAll('.mantine-MultiSelect-pill')].map((pill) => pill.textContent);
const limitsOf = (request: RecordedRequest | undefined) => {
  const { allowedModels, maxOutputTokensPerCall, perClientLimits } = request?.body as Record<string, unknown>;
  return { allowedModels, maxOutputTokensPerCall, perClientLimits };
};

async function openCreate(user: User) {
  await user.click(await screen.findByRole('button', { name: 'New publishable key' }));
  return screen.findByRole('dialog', { name: 'New publishable key' });
}

async function openEdit(user: User, name = 'Web app') {
  await user.click(await screen.findByRole('button', { name: `Edit key ${name}` }));
  return screen.findByRole('dialog', { name: 'Edit publishable key' });
}

async function chooseModels(user: User, dialog: HTMLElement, ...models: string[]) {
  await user.click(within(dialog).getByRole('combobox', { name: 'Models' }));
  for (const model of models) await user.click(await screen.findByRole('option', { name: model }));
  await user.keyboard('{Escape}');
}

async function retype(user: User, input: HTMLElement, text: string) {
  await user.clear(input);
  if (text) await user.type(input, text);
}

// Typing into the controlled form re-renders it per key; these tests take longer than the default 5 s.
describe('/dashboard: limits for a copied key', { timeout: 20_000 }, () => {
  it('starts a new key at every priced model, the model maximum, 30 requests a minute and $1 a day; lists the priced models', async () => {
    const { user } = renderDashboard();
    const dialog = await openCreate(user);
    const form = within(dialog);

    expect(form.getByRole('group', { name: 'Limits for a copied key' })).toBeInTheDocument();
    expect(pills(dialog)).toEqual([]);
    expect(form.getByRole('combobox', { name: 'Models' })).toHaveAttribute('placeholder', 'Every priced model');
    expect(form.getByLabelText('Max output tokens per call')).toHaveValue('');
    expect(form.getByLabelText('Requests per minute per visitor address')).toHaveValue('30');
    expect(defaultPerClientLimits.spendPerDay).toBe(1);
    expect(form.getByLabelText('Spend per day per visitor address')).toHaveValue('$1');
    // A new key has no worst case yet.
    expect(form.queryByText(/Worst case if copied today/)).not.toBeInTheDocument();

    await user.click(form.getByRole('combobox', { name: 'Models' }));

    expect((await screen.findAllByRole('option')).map((option) => option.textContent)).toEqual(pricedModels.map((model) => model.id));
  });

  it('creates a key with the models and limits chosen', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.create(buildPublishableKey({ name: 'Checkout' }), { requests }));
    const { user } = renderDashboard();
    const dialog = await openCreate(user);
    const form = within(dialog);
    await user.type(form.getByLabelText('Name'), 'Checkout');

    await chooseModels(user, dialog, 'gpt-4o-mini', 'demo-echo');
    await user.type(form.getByLabelText('Max output tokens per call'), '2048');
    await retype(user, form.getByLabelText('Requests per minute per visitor address'), '10');
    await retype(user, form.getByLabelText('Spend per day per visitor address'), '2.5');
    await user.click(form.getByRole('button', { name: 'Create key' }));

    expect(await form.findByLabelText('Publishable key')).toBeInTheDocument();
    expect(limitsOf(requests[0])).toEqual({
      allowedModels: ['gpt-4o-mini', 'demo-echo'],
      maxOutputTokensPerCall: 2048,
      perClientLimits: { requestsPerMinute: 10, spendPerDay: 2.5 },
    });
  });

  it('opens a key with its own limits and saves the changed ones', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.update({ requests }));
    const { user } = renderDashboard([limited]);
    const dialog = await openEdit(user);
    const form = within(dialog);

    expect(pills(dialog)).toEqual(['gpt-4o-mini']);
    expect(form.getByRole('combobox', { name: 'Models' })).not.toHaveAttribute('placeholder');
    expect(form.getByLabelText('Max output tokens per call')).toHaveValue('1024');
    expect(form.getByLabelText('Requests per minute per visitor address')).toHaveValue('60');
    expect(form.getByLabelText('Spend per day per visitor address')).toHaveValue('$5');
    expect(form.getByText('Worst case if copied today: $9.58, what the budget has left this month.')).toBeInTheDocument();

    await chooseModels(user, dialog, 'claude-haiku');
    await retype(user, form.getByLabelText('Max output tokens per call'), '4096');
    await retype(user, form.getByLabelText('Requests per minute per visitor address'), '120');
    await retype(user, form.getByLabelText('Spend per day per visitor address'), '0.75');
    await user.click(form.getByRole('button', { name: 'Save' }));

    expect(await toast('Success!')).toBeInTheDocument();
    expect(requests.map((request) => request.id)).toEqual([limited.id]);
    expect(limitsOf(requests[0])).toEqual({
      allowedModels: ['gpt-4o-mini', 'claude-haiku'],
      maxOutputTokensPerCall: 4096,
      perClientLimits: { requestsPerMinute: 120, spendPerDay: 0.75 },
    });
  });

  it('sends null for each limit cleared, so the PUT really clears it', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.update({ requests }));
    const { user } = renderDashboard([limited]);
    const dialog = await openEdit(user);
    const form = within(dialog);

    await user.click(form.getByRole('combobox', { name: 'Models' }));
    await user.keyboard('{Backspace}{Escape}');
    await retype(user, form.getByLabelText('Max output tokens per call'), '');
    await retype(user, form.getByLabelText('Requests per minute per visitor address'), '');
    await retype(user, form.getByLabelText('Spend per day per visitor address'), '');

    expect(pills(dialog)).toEqual([]);
    expect(form.getByRole('combobox', { name: 'Models' })).toHaveAttribute('placeholder', 'Every priced model');
    await user.click(form.getByRole('button', { name: 'Save' }));

    expect(await toast('Success!')).toBeInTheDocument();
    expect(limitsOf(requests[0])).toEqual({
      allowedModels: null,
      maxOutputTokensPerCall: null,
      perClientLimits: { requestsPerMinute: null, spendPerDay: null },
    });
  });

  it('keeps a chosen model the price list no longer has, so it can be seen and removed', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.update({ requests }));
    const { user } = renderDashboard([buildPublishableKey({ allowedModels: ['retired-model', 'demo-echo'] })]);
    const dialog = await openEdit(user);

    expect(pills(dialog)).toEqual(['retired-model', 'demo-echo']);
    await chooseModels(user, dialog, 'retired-model');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    expect(await toast('Success!')).toBeInTheDocument();
    expect(limitsOf(requests[0]).allowedModels).toEqual(['demo-echo']);
  });

  it.each([
    ['no requests a minute', 'Requests per minute per visitor address', '0', 'Minimum is 1'],
    [
      'more requests a minute than the api allows',
      'Requests per minute per visitor address',
      String(maxClientRequestsPerMinute + 1),
      `Maximum is ${maxClientRequestsPerMinute}`,
    ],
    ['no dollars a day', 'Spend per day per visitor address', '0', 'Minimum is 0.01'],
    ['more dollars a day than the api allows', 'Spend per day per visitor address', String(maxKeyBudget + 1), `Maximum is ${maxKeyBudget}`],
    ['no output tokens', 'Max output tokens per call', '0', 'Minimum is 1'],
    [
      'more output tokens than the api allows',
      'Max output tokens per call',
      String(maxOutputTokensPerCallLimit + 1),
      `Maximum is ${maxOutputTokensPerCallLimit}`,
    ],
  ])("refuses %s with the contract's message", async (_case, label, value, message) => {
    const { user } = renderDashboard();
    const form = within(await openCreate(user));
    await user.type(form.getByLabelText('Name'), 'Checkout');

    await retype(user, form.getByLabelText(label), value);
    await user.click(form.getByRole('button', { name: 'Create key' }));

    // No request is made: an unhandled POST would fail the test.
    expect(form.getByLabelText(label)).toHaveAccessibleDescription(expect.stringContaining(message));
    expect(form.getByRole('button', { name: 'Create key' })).toBeInTheDocument();
  });

  it("says so when the models cannot be loaded, and still saves the key's own", async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.update({ requests }));
    const { user } = renderDashboard([limited], keysHandlers.modelsFailure(500));
    const form = within(await openEdit(user));

    expect(within(await toast('Wooops!')).getByText('Failed to load models')).toBeInTheDocument();
    expect(form.getByRole('combobox', { name: 'Models' })).toHaveAccessibleDescription(expect.stringContaining('Failed to load models'));
    await user.click(form.getByRole('button', { name: 'Save' }));

    expect(await toast('Success!')).toBeInTheDocument();
    expect(limitsOf(requests[0]).allowedModels).toEqual(['gpt-4o-mini']);
  });
});

// Issue #24: identical non-streamed calls with the key within its cache time are answered from the cache, free.
describe("/dashboard: a key's response cache", { timeout: 20_000 }, () => {
  const cached = buildPublishableKey({ responseCacheSeconds: 600 });
  const cacheOf = (request: RecordedRequest | undefined) => (request?.body as Record<string, unknown>).responseCacheSeconds;

  it('starts a new key without a cache, says what one does, and creates a key with the seconds given', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.create(buildPublishableKey({ name: 'Checkout', responseCacheSeconds: 600 }), { requests }));
    const { user } = renderDashboard();
    const form = within(await openCreate(user));

    const cache = form.getByLabelText('Response cache (seconds)');
    expect(cache).toHaveValue('');
    expect(cache).toHaveAccessibleDescription(expect.stringContaining('answered from the cache and charged nothing'));
    await user.type(form.getByLabelText('Name'), 'Checkout');
    await user.type(cache, '600');
    await user.click(form.getByRole('button', { name: 'Create key' }));

    expect(await form.findByLabelText('Publishable key')).toBeInTheDocument();
    expect(cacheOf(requests[0])).toBe(600);
  });

  it('shares cached answers across end users only when the switch says so, and says what that reveals', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.update({ requests }));
    const { user } = renderDashboard([cached]);
    const form = within(await openEdit(user));

    const shared = form.getByRole('switch', { name: /^Share cached answers across end users/ });
    expect(shared).not.toBeChecked();
    // Its label says what sharing reveals.
    expect(shared).toHaveAccessibleName(expect.stringContaining('and so learn that someone asked it'));
    await user.click(shared);
    await user.click(form.getByRole('button', { name: 'Save' }));

    expect(await toast('Success!')).toBeInTheDocument();
    expect((requests[0]?.body as Record<string, unknown>).responseCacheShared).toBe(true);
  });

  it('keeps the cache on an edit that leaves it alone', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.update({ requests }));
    const { user } = renderDashboard([cached]);
    const form = within(await openEdit(user));

    expect(form.getByLabelText('Response cache (seconds)')).toHaveValue('600');
    await retype(user, form.getByLabelText('Name'), 'Web app 2');
    await user.click(form.getByRole('button', { name: 'Save' }));

    expect(await toast('Success!')).toBeInTheDocument();
    expect(requests.map((request) => request.id)).toEqual([cached.id]);
    expect(cacheOf(requests[0])).toBe(600);
  });

  it('saves a changed cache time, and null for a cleared one, so the PUT really turns it off', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.update({ requests }));
    const { user } = renderDashboard([cached]);

    let form = within(await openEdit(user));
    await retype(user, form.getByLabelText('Response cache (seconds)'), '30');
    await user.click(form.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(requests).toHaveLength(1));

    form = within(await openEdit(user));
    await retype(user, form.getByLabelText('Response cache (seconds)'), '');
    await user.click(form.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(requests).toHaveLength(2));

    expect(requests.map(cacheOf)).toEqual([30, null]);
  });

  it.each([
    ['no seconds', '0', 'Minimum is 1'],
    ['more than a day', String(maxResponseCacheSeconds + 1), `Maximum is ${maxResponseCacheSeconds}`],
  ])("refuses %s with the contract's message and sends nothing", async (_case, value, message) => {
    const { user } = renderDashboard();
    const form = within(await openCreate(user));
    await user.type(form.getByLabelText('Name'), 'Checkout');

    await user.type(form.getByLabelText('Response cache (seconds)'), value);
    await user.click(form.getByRole('button', { name: 'Create key' }));

    // No request is made: an unhandled POST would fail the test.
    expect(form.getByLabelText('Response cache (seconds)')).toHaveAccessibleDescription(expect.stringContaining(message));
    expect(form.getByRole('button', { name: 'Create key' })).toBeInTheDocument();
  });

  it('shows under the budget how long a key caches answers and whether end users share them, and nothing for a key without a cache', async () => {
    renderDashboard([
      buildPublishableKey({ id: '66666666-1111-4111-8111-111111111111', name: 'Minutes', responseCacheSeconds: 600 }),
      buildPublishableKey({ id: '77777777-1111-4111-8111-111111111111', name: 'Seconds', responseCacheSeconds: 45 }),
      buildPublishableKey({
        id: '88888888-1111-4111-8111-111111111111',
        name: 'A day',
        responseCacheSeconds: maxResponseCacheSeconds,
        responseCacheShared: true,
      }),
      buildPublishableKey({ id: '99999999-1111-4111-8111-111111111111', name: 'Uncached', responseCacheSeconds: null }),
    ]);

    expect(within(await rowOf('Minutes')).getByText('Caches answers for 10 min')).toBeInTheDocument();
    expect(within(await rowOf('Seconds')).getByText('Caches answers for 45 s')).toBeInTheDocument();
    expect(within(await rowOf('A day')).getByText('Caches answers for 24 h, shared across end users')).toBeInTheDocument();
    expect(within(await rowOf('Uncached')).queryByText(/^Caches answers/)).not.toBeInTheDocument();
  });
});

describe('/dashboard: the keys table and the per-address caps', () => {
  const keyWith = (id: string, name: string, perClientLimits: (typeof webApp)['perClientLimits']) =>
    buildPublishableKey({ id: `${id}-1111-4111-8111-111111111111`, name, perClientLimits });

  it('warns about a key with neither per-address cap, and shows the caps of the others', async () => {
    renderDashboard([
      keyWith('11111111', 'Uncapped', { requestsPerMinute: null, spendPerDay: null }),
      keyWith('22222222', 'Requests only', { requestsPerMinute: 30, spendPerDay: null }),
      keyWith('33333333', 'Spend only', { requestsPerMinute: null, spendPerDay: 2.5 }),
      keyWith('44444444', 'Both', { requestsPerMinute: 30, spendPerDay: 1 }),
    ]);

    expect(keyWarningTexts.noClientCap).toBe(
      "No per-address cap: anyone who copies this key from your page can use its whole budget. Set a per-visitor limit in the key's limits.",
    );
    const uncapped = within(await rowOf('Uncapped'));
    expect(uncapped.getByText(keyWarningTexts.noClientCap)).toBeInTheDocument();
    expect(uncapped.queryByText(/per address$/)).not.toBeInTheDocument();

    for (const [name, caps] of [
      ['Requests only', '30 req/min per address'],
      ['Spend only', '$2.50/day per address'],
      ['Both', '30 req/min · $1.00/day per address'],
    ] as const) {
      const row = within(await rowOf(name));
      expect(row.queryByText(keyWarningTexts.noClientCap)).not.toBeInTheDocument();
      expect(row.getByText(caps)).toBeInTheDocument();
    }
  });

  it('shows under the budget what a copy of the key could spend today', async () => {
    renderDashboard([
      buildPublishableKey({ worstCaseDailySpend: 9.58 }),
      buildPublishableKey({ id: '55555555-1111-4111-8111-111111111111', name: 'Spent', worstCaseDailySpend: 0 }),
    ]);

    const row = within(await rowOf('Web app'));
    expect(row.getByText('$10 / month')).toBeInTheDocument();
    expect(row.getByText('Worst case if copied today: $9.58')).toBeInTheDocument();
    expect(within(await rowOf('Spent')).getByText('Worst case if copied today: $0.00')).toBeInTheDocument();
  });
});

import type { Role } from '@meterway/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime } from '../../lib/format';
import { withFakeTimers } from '../../testing/fake-timers';
import { buildPublishableKey, keysHandlers, type RecordedRequest } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { buildSecretKey, secretKeysHandlers } from '../../testing/secret-keys-handlers';

// Issue #23: the dashboard's secret keys, beside the publishable keys.

beforeAll(async () => {
  await Promise.all([import('./app-layout'), import('./dashboard')]);
});

const backend = buildSecretKey();
const reports = buildSecretKey({ id: '5b7d9f1a-3c5e-4a7b-8d9f-1a3c5e7a9b1d', name: 'Reports', scope: 'admin', prefix: 'sk_live_Qr5T' });
const secretValue = 'sk_live_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';

/** The dashboard with these secret keys ('failure': the list answers 500). */
function renderDashboard(secretKeys: Parameters<typeof secretKeysHandlers.list>[0] | 'failure' = [backend, reports], role: Role = 'owner') {
  server.use(
    meHandlers.signedIn({ role, organizations: [{ organizationId: 'org_01', organizationName: 'Analytical Engines', role }] }),
    keysHandlers.list([buildPublishableKey()]),
    keysHandlers.models(),
    keysHandlers.blocks(),
    secretKeys === 'failure' ? secretKeysHandlers.listFailure(500) : secretKeysHandlers.list(secretKeys),
  );
  return renderRoute('/dashboard');
}

const secretTable = async () => within(await screen.findByRole('table', { name: 'Secret keys' }));
const rowOf = async (name: string) => (await (await secretTable()).findByText(name)).closest('tr') as HTMLElement;
const toast = (title: 'Wooops!' | 'Success!') => screen.findByText(title).then((element) => element.closest('.mantine-Notification-root') as HTMLElement);
const cellTexts = (row: HTMLElement) =>
  within(row)
    .getAllByRole('cell')
    .map((cell) => cell.textContent);

describe('/dashboard: secret keys', { timeout: 20_000 }, () => {
  it('lists each key with its scope, prefix, budget, worst case if leaked and spend, and explains what they are for', async () => {
    renderDashboard();

    const table = await secretTable();
    await table.findByText('Backend');
    expect(cellTexts(await rowOf('Backend'))).toEqual([
      'BackendMade by ada@example.com',
      'Gateway',
      'sk_live_AbCd…',
      '$50 / monthWorst case if leaked today: $37.50',
      '$12.50 spent this month',
      'EditRollDelete',
    ]);
    expect(cellTexts(await rowOf('Reports')).slice(0, 3)).toEqual(['ReportsMade by ada@example.com', 'Admin', 'sk_live_Qr5T…']);
    expect(
      screen.getByText(/Secret keys are for your servers and never go in a web page: the gateway refuses a browser request that carries one/),
    ).toBeInTheDocument();
    expect(screen.getByText('/v1/organization/…')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'docs' })).toHaveAttribute('href', 'http://localhost:8080/docs');
  });

  it("names each key's maker, marks one who left, and says an admin key is stopped once its maker may no longer make one (issue #53)", async () => {
    const grace = { personId: '8f7e6d5c-4b3a-4291-8e0f-7e6d5c4b3a29', email: 'grace@example.com' };
    renderDashboard([
      buildSecretKey({ madeBy: { ...grace, role: null } }),
      { ...reports, madeBy: { ...grace, role: 'developer' } },
      buildSecretKey({ id: '0c2e4a6b-8d0f-4b1c-9e3a-5c7e9a1b3d5f', name: 'Ledger', scope: 'admin', madeBy: { ...grace, role: 'admin' } }),
    ]);

    const maker = async (name: string) => within(await rowOf(name)).getByLabelText(`Maker of ${name}`).textContent;
    // A gateway key whose maker left keeps working: marked, not stopped.
    expect(await maker('Backend')).toBe('Made by grace@example.com' + 'Maker left');
    expect(await maker('Reports')).toBe('Made by grace@example.com' + 'Stopped: its maker is no longer an owner or admin. Roll it to take it over.');
    expect(await maker('Ledger')).toBe('Made by grace@example.com');
  });

  it('says when there is none yet, with a button that opens the create form', async () => {
    const { user } = renderDashboard([]);

    const table = await secretTable();
    expect(await table.findByText('No secret keys yet')).toBeInTheDocument();
    await user.click(table.getByRole('button', { name: 'Create a secret key' }));

    expect(await screen.findByRole('dialog', { name: 'New secret key' })).toBeInTheDocument();
  });

  it("shows 'Failed to load secret keys' in the table and a 'Wooops!' toast", async () => {
    renderDashboard('failure');

    expect(within(await toast('Wooops!')).getByText('Failed to load secret keys')).toBeInTheDocument();
    expect((await secretTable()).getByText('Failed to load secret keys')).toBeInTheDocument();
  });

  it.each(['owner', 'admin', 'developer'] as const)('shows the secret keys to an %s', async (role) => {
    renderDashboard([backend], role);
    expect(await screen.findByRole('heading', { name: 'Secret keys' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'New secret key' })).toBeInTheDocument();
  });

  it('neither shows nor asks for the secret keys for billing', async () => {
    const asked: string[] = [];
    server.use(
      meHandlers.signedIn({ role: 'billing', organizations: [{ organizationId: 'org_01', organizationName: 'Analytical Engines', role: 'billing' }] }),
    );
    server.use(secretKeysHandlers.list([backend], { asked }));
    renderRoute('/dashboard');

    expect(await screen.findByRole('link', { name: 'Add credits' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Secret keys' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'New secret key' })).not.toBeInTheDocument();
    expect(asked).toEqual([]);
  });

  it('creates a gateway key without origins or per-address caps, and shows its value once with a warning', async () => {
    const requests: RecordedRequest[] = [];
    const created = buildSecretKey({ id: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d', name: 'Worker', prefix: 'sk_live_AbCd', value: secretValue });
    server.use(secretKeysHandlers.create(created, { requests }));
    const { user } = renderDashboard([[backend], [backend, { ...created, value: undefined }]]);

    await user.click(await screen.findByRole('button', { name: 'New secret key' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New secret key' }));
    expect(dialog.queryByText('Allowed domains')).not.toBeInTheDocument();
    expect(dialog.getByRole('radio', { name: /^Gateway/ })).toBeChecked();
    expect(dialog.getByLabelText('Requests per minute per client address')).toHaveValue('');
    await user.type(dialog.getByLabelText('Name'), 'Worker');
    await user.click(dialog.getByRole('button', { name: 'Create key' }));

    const value = await dialog.findByLabelText('Secret key');
    expect(requests).toEqual([
      {
        body: {
          name: 'Worker',
          budget: 10,
          budgetType: 'monthly',
          allowedModels: null,
          maxOutputTokensPerCall: null,
          perClientLimits: { requestsPerMinute: null, spendPerDay: null },
          perEndUserLimits: { requestsPerMinute: null, spendPerDay: null, spendPerMonth: null },
          endUserTokens: null,
          responseCacheSeconds: null,
          responseCacheShared: false,
          scope: 'gateway',
        },
      },
    ]);
    expect(value).toHaveValue(secretValue);
    expect(value).toBeDisabled();
    expect(dialog.getByText(/this value will not be shown again/)).toBeInTheDocument();

    await user.click(dialog.getByRole('button', { name: 'Copy secret key' }));
    expect(await navigator.clipboard.readText()).toBe(secretValue);
    await user.click(dialog.getByRole('button', { name: 'Done' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(await (await secretTable()).findByText('Worker')).toBeInTheDocument();
    // The value is gone: the table shows the prefix only, and a new form starts empty.
    expect(screen.queryByText(secretValue)).not.toBeInTheDocument();
    expect(screen.queryByDisplayValue(secretValue)).not.toBeInTheDocument();
  });

  it('creates an admin key when asked', async () => {
    const requests: RecordedRequest[] = [];
    server.use(secretKeysHandlers.create(buildSecretKey({ scope: 'admin', value: secretValue }), { requests }));
    const { user } = renderDashboard();

    await user.click(await screen.findByRole('button', { name: 'New secret key' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New secret key' }));
    await user.type(dialog.getByLabelText('Name'), 'Reports');
    await user.click(dialog.getByRole('radio', { name: /^Admin/ }));
    await user.click(dialog.getByRole('button', { name: 'Create key' }));

    expect(await dialog.findByLabelText('Secret key')).toHaveValue(secretValue);
    expect(requests[0]?.body).toMatchObject({ name: 'Reports', scope: 'admin' });
  });

  it('offers a developer no admin key: the option is off and says who makes one', async () => {
    const { user } = renderDashboard(undefined, 'developer');

    await user.click(await screen.findByRole('button', { name: 'New secret key' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New secret key' }));
    const admin = dialog.getByRole('radio', { name: /^Admin/ });
    expect(admin).toBeDisabled();
    expect(dialog.getByText(/Only owners and admins make admin keys: one also reads the credit history\./)).toBeInTheDocument();
    expect(dialog.getByRole('radio', { name: /^Gateway/ })).toBeChecked();
  });

  it('refuses a short name with the contract message and sends nothing', async () => {
    const requests: RecordedRequest[] = [];
    server.use(secretKeysHandlers.create(buildSecretKey({ value: secretValue }), { requests }));
    const { user } = renderDashboard();

    await user.click(await screen.findByRole('button', { name: 'New secret key' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New secret key' }));
    await user.type(dialog.getByLabelText('Name'), 'ab');
    await user.click(dialog.getByRole('button', { name: 'Create key' }));

    expect(await dialog.findByText('Minimum length is 3')).toBeInTheDocument();
    expect(requests).toEqual([]);
  });

  describe('with fake timers', () => {
    const advance = withFakeTimers();

    it('says "Copied" for 2 seconds after copying the shown value', async () => {
      server.use(secretKeysHandlers.create(buildSecretKey({ value: secretValue })));
      const { user } = renderDashboard();
      await user.click(await screen.findByRole('button', { name: 'New secret key' }));
      const dialog = within(await screen.findByRole('dialog', { name: 'New secret key' }));
      await user.type(dialog.getByLabelText('Name'), 'Worker');
      await user.click(dialog.getByRole('button', { name: 'Create key' }));
      await user.click(await dialog.findByRole('button', { name: 'Copy secret key' }));

      expect(screen.getByRole('tooltip')).toHaveTextContent('Copied');
      await advance(1500);
      expect(screen.getByText('Copied')).toBeInTheDocument();
      await advance(500);
      await waitFor(() => expect(screen.queryByText('Copied')).not.toBeInTheDocument());
    });
  });

  it('edits a key without its scope, which it shows read only', async () => {
    const requests: RecordedRequest[] = [];
    server.use(secretKeysHandlers.update(backend, { requests }));
    const { user } = renderDashboard();

    await user.click(within(await rowOf('Backend')).getByRole('button', { name: 'Edit secret key Backend' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Edit secret key' }));
    expect(dialog.getByLabelText('Scope')).toHaveValue('Gateway: Call models from your server (chat completions).');
    expect(dialog.getByLabelText('Scope')).toHaveAttribute('readonly');
    expect(dialog.getByText('Worst case if leaked today: $37.50, what the budget has left this month.')).toBeInTheDocument();
    const budget = dialog.getByLabelText('Budget');
    await user.clear(budget);
    await user.type(budget, '75');
    await user.click(dialog.getByRole('button', { name: 'Save' }));

    expect(within(await toast('Success!')).getByText('Secret key updated')).toBeInTheDocument();
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ id: backend.id, body: { name: 'Backend', budget: 75 } });
    expect(requests[0]?.body).not.toHaveProperty('scope');
    expect(requests[0]?.body).not.toHaveProperty('allowedOrigins');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('creates a key with a response cache, and keeps it on an edit that leaves it alone (issue #24)', async () => {
    const requests: RecordedRequest[] = [];
    const cached = buildSecretKey({ responseCacheSeconds: 300 });
    server.use(
      secretKeysHandlers.create(buildSecretKey({ value: secretValue, responseCacheSeconds: 300 }), { requests }),
      secretKeysHandlers.update(cached, { requests }),
    );
    const { user } = renderDashboard([cached]);

    await user.click(await screen.findByRole('button', { name: 'New secret key' }));
    const create = within(await screen.findByRole('dialog', { name: 'New secret key' }));
    expect(create.getByLabelText('Response cache (seconds)')).toHaveValue('');
    await user.type(create.getByLabelText('Name'), 'Worker');
    await user.type(create.getByLabelText('Response cache (seconds)'), '300');
    await user.click(create.getByRole('button', { name: 'Create key' }));
    await user.click(await create.findByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    await user.click(within(await rowOf('Backend')).getByRole('button', { name: 'Edit secret key Backend' }));
    const edit = within(await screen.findByRole('dialog', { name: 'Edit secret key' }));
    expect(edit.getByLabelText('Response cache (seconds)')).toHaveValue('300');
    await user.click(edit.getByRole('button', { name: 'Save' }));

    expect(within(await toast('Success!')).getByText('Secret key updated')).toBeInTheDocument();
    expect(requests.map((request) => (request.body as { responseCacheSeconds: unknown }).responseCacheSeconds)).toEqual([300, 300]);
  });

  it('rolls a key with the chosen overlap and shows the new value once', async () => {
    const requests: RecordedRequest[] = [];
    const until = '2031-03-10T15:15:00.000Z';
    const newValue = 'sk_live_N3wV4lu3N3wV4lu3N3wV4lu3N3wV4lu3';
    const rolled = buildSecretKey({ value: newValue, prefix: 'sk_live_N3wV', previousValueExpiresAt: until });
    server.use(secretKeysHandlers.roll(rolled, { requests }));
    const { user } = renderDashboard([[backend], [{ ...rolled, value: undefined }]]);

    await user.click(within(await rowOf('Backend')).getByRole('button', { name: 'Roll secret key Backend' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Roll secret key' }));
    expect(dialog.getByText(/Rolling issues a new value for Backend\. Its name, scope, budget and spend stay as they are\./)).toBeInTheDocument();
    await user.click(dialog.getByRole('radio', { name: '12 hours' }));
    await user.click(dialog.getByRole('button', { name: 'Roll key' }));

    expect(await dialog.findByLabelText('Secret key')).toHaveValue(newValue);
    expect(requests).toEqual([{ id: backend.id, body: { overlapHours: 12 } }]);
    expect(dialog.getByText(`The new value of Backend is ready. The old value keeps working until ${formatDateTime(until)}, then stops.`)).toBeInTheDocument();
    expect(dialog.getByText(/this value will not be shown again/)).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Done' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const row = within(await rowOf('Backend'));
    expect(await row.findByText('sk_live_N3wV…')).toBeInTheDocument();
    expect(row.getByText(`Previous value works until ${formatDateTime(until)}`)).toBeInTheDocument();
  });

  it("shows 'Failed to roll secret key' in a 'Wooops!' toast and stays on the choice", async () => {
    server.use(secretKeysHandlers.roll(backend, { failure: 500 }));
    const { user } = renderDashboard();

    await user.click(within(await rowOf('Backend')).getByRole('button', { name: 'Roll secret key Backend' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Roll secret key' }));
    await user.click(dialog.getByRole('button', { name: 'Roll key' }));

    expect(within(await toast('Wooops!')).getByText('Failed to roll secret key')).toBeInTheDocument();
    expect(dialog.getByRole('button', { name: 'Roll key' })).toBeEnabled();
  });

  it('deletes a key after confirmation, with the reason given', async () => {
    const requests: RecordedRequest[] = [];
    server.use(secretKeysHandlers.remove({ requests }));
    const { user } = renderDashboard([[backend, reports], [reports]]);

    await user.click(within(await rowOf('Backend')).getByRole('button', { name: 'Delete secret key Backend' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Delete Secret Key' }));
    expect(dialog.getByText('Are you sure you want to delete the secret key Backend? This action cannot be undone.')).toBeInTheDocument();
    await user.type(dialog.getByLabelText('Reason (optional)'), 'Moved to another provider');
    await user.click(dialog.getByRole('button', { name: 'Delete' }));

    expect(within(await toast('Success!')).getByText('Secret key deleted')).toBeInTheDocument();
    expect(requests).toEqual([{ id: backend.id, body: { reason: 'Moved to another provider' } }]);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await waitFor(async () => expect((await secretTable()).queryByText('Backend')).not.toBeInTheDocument());
  });

  it('sends no body without a reason, and Cancel deletes nothing', async () => {
    const requests: RecordedRequest[] = [];
    server.use(secretKeysHandlers.remove({ requests }));
    const { user } = renderDashboard();

    await user.click(within(await rowOf('Backend')).getByRole('button', { name: 'Delete secret key Backend' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete Secret Key' })).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(requests).toEqual([]);

    await user.click(within(await rowOf('Backend')).getByRole('button', { name: 'Delete secret key Backend' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete Secret Key' })).getByRole('button', { name: 'Delete' }));

    await waitFor(() => expect(requests).toEqual([{ id: backend.id }]));
  });
});

import type { Role } from '@meterway/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime } from '../../lib/format';
import { withFakeTimers } from '../../testing/fake-timers';
import type { RecordedRequest } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { buildWebhookDelivery, buildWebhookEndpoint, webhooksHandlers } from '../../testing/webhooks-handlers';

// Issue #23: the organisation's webhook endpoints, their signing secret shown once, and their deliveries.

beforeAll(() => Promise.all([import('./app-layout'), import('./webhooks')]), 30_000);

const signedInAs = (role: Role) => meHandlers.signedIn({ role, organizations: [{ organizationId: 'org_01', organizationName: 'Analytical Engines', role }] });

const hooks = buildWebhookEndpoint();
const secret = 'whsec_4fQx9LmN2pR7sT1vW3yZ8aB6cD0eF5gH';

function renderWebhooks(endpoints: Parameters<typeof webhooksHandlers.list>[0] = [hooks], role: Role = 'owner') {
  server.use(signedInAs(role), webhooksHandlers.list(endpoints));
  return renderRoute('/webhooks');
}

const endpointsTable = async () => within(await screen.findByRole('table', { name: 'Webhook endpoints' }));
const toast = (title: 'Wooops!' | 'Success!') => screen.findByText(title).then((element) => element.closest('.mantine-Notification-root') as HTMLElement);

async function openAdd(user: ReturnType<typeof renderRoute>['user']) {
  await user.click(await screen.findByRole('button', { name: 'Add endpoint' }));
  return within(await screen.findByRole('dialog', { name: 'Add endpoint' }));
}

describe('/webhooks', { timeout: 20_000 }, () => {
  it('lists each endpoint with its URL, events and when it was added', async () => {
    renderWebhooks();

    const table = await endpointsTable();
    const row = (await table.findByText(hooks.url)).closest('tr') as HTMLElement;
    expect(within(row).getByText('balance.low')).toBeInTheDocument();
    expect(within(row).getByText('credit.added')).toBeInTheDocument();
    expect(within(row).getByText(formatDateTime(hooks.createdAt))).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'docs' })).toHaveAttribute('href', 'http://localhost:8080/docs#webhooks');
  });

  it('says when there is none yet, with a button that opens Add endpoint', async () => {
    const { user } = renderWebhooks([]);

    const table = await endpointsTable();
    expect(await table.findByText('No webhook endpoints yet')).toBeInTheDocument();
    await user.click(table.getByRole('button', { name: 'Add your first endpoint' }));
    expect(await screen.findByRole('dialog', { name: 'Add endpoint' })).toBeInTheDocument();
  });

  it("shows 'Failed to load webhook endpoints' in the table and a 'Wooops!' toast", async () => {
    server.use(signedInAs('owner'), webhooksHandlers.listFailure(500));
    renderRoute('/webhooks');

    expect(within(await toast('Wooops!')).getByText('Failed to load webhook endpoints')).toBeInTheDocument();
    expect((await endpointsTable()).getByText('Failed to load webhook endpoints')).toBeInTheDocument();
  });

  it('offers each event type with a one-line description, and refuses a form without a URL or events', async () => {
    const requests: RecordedRequest[] = [];
    server.use(webhooksHandlers.create(buildWebhookEndpoint({ secret }), { requests }));
    const { user } = renderWebhooks();
    const dialog = await openAdd(user);

    for (const type of ['balance.low', 'key.budget_threshold', 'credit.added', 'auto_top_up.failed', 'key.blocked_caller'])
      expect(dialog.getByRole('checkbox', { name: type })).not.toBeChecked();
    expect(dialog.getByRole('checkbox', { name: 'balance.low' })).toHaveAccessibleDescription('The balance fell below the low-balance alert threshold.');
    await user.click(dialog.getByRole('button', { name: 'Add endpoint' }));

    expect(await dialog.findByText('Enter the URL of your endpoint')).toBeInTheDocument();
    expect(dialog.getByText('Choose at least one event')).toBeInTheDocument();

    await user.type(dialog.getByLabelText('URL'), 'ftp://example.com/hook');
    await user.click(dialog.getByRole('button', { name: 'Add endpoint' }));
    expect(await dialog.findByText('Enter an https:// URL')).toBeInTheDocument();
    expect(requests).toEqual([]);
  });

  it('adds an endpoint, then shows its signing secret once with a copy button and the docs', async () => {
    const requests: RecordedRequest[] = [];
    const created = buildWebhookEndpoint({
      id: '0d2f4b6d-8f0a-4c2e-9b4d-6f8a0c2e4b6d',
      url: 'https://api.shop.example/hooks',
      events: ['credit.added'],
      secret,
    });
    server.use(webhooksHandlers.create(created, { requests }));
    const { user } = renderWebhooks([[hooks], [hooks, { ...created, secret: undefined }]]);
    const dialog = await openAdd(user);

    await user.type(dialog.getByLabelText('URL'), '  https://api.shop.example/hooks ');
    await user.click(dialog.getByRole('checkbox', { name: 'credit.added' }));
    await user.click(dialog.getByRole('button', { name: 'Add endpoint' }));

    const value = await dialog.findByLabelText('Signing secret');
    expect(requests).toEqual([{ body: { url: 'https://api.shop.example/hooks', events: ['credit.added'] } }]);
    expect(value).toHaveValue(secret);
    expect(value).toBeDisabled();
    expect(dialog.getByText(/this secret will not be shown again/)).toBeInTheDocument();
    expect(dialog.getByRole('link', { name: 'verification snippet in the docs' })).toHaveAttribute('href', 'http://localhost:8080/docs#webhooks');
    await user.click(dialog.getByRole('button', { name: 'Copy signing secret' }));
    expect(await navigator.clipboard.readText()).toBe(secret);

    await user.click(dialog.getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(await (await endpointsTable()).findByText('https://api.shop.example/hooks')).toBeInTheDocument();
    expect(screen.queryByDisplayValue(secret)).not.toBeInTheDocument();

    // Opened again, the form is empty and the secret gone.
    const again = await openAdd(user);
    expect(again.getByLabelText('URL')).toHaveValue('');
    expect(again.queryByLabelText('Signing secret')).not.toBeInTheDocument();
  });

  it("shows 'Failed to add webhook endpoint' in a 'Wooops!' toast and keeps the form", async () => {
    server.use(webhooksHandlers.create(buildWebhookEndpoint({ secret }), { failure: 400 }));
    const { user } = renderWebhooks();
    const dialog = await openAdd(user);
    await user.type(dialog.getByLabelText('URL'), 'https://hooks.example.com/x');
    await user.click(dialog.getByRole('checkbox', { name: 'balance.low' }));
    await user.click(dialog.getByRole('button', { name: 'Add endpoint' }));

    expect(within(await toast('Wooops!')).getByText('Failed to add webhook endpoint')).toBeInTheDocument();
    expect(dialog.getByLabelText('URL')).toHaveValue('https://hooks.example.com/x');
  });

  it('deletes an endpoint after confirmation', async () => {
    const requests: RecordedRequest[] = [];
    server.use(webhooksHandlers.remove({ requests }));
    const { user } = renderWebhooks([[hooks], []]);

    await user.click(await screen.findByRole('button', { name: `Delete ${hooks.url}` }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Delete Webhook Endpoint' }));
    expect(
      dialog.getByText(`Are you sure you want to delete the webhook endpoint ${hooks.url}? Its deliveries stop. This action cannot be undone.`),
    ).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Delete' }));

    expect(within(await toast('Success!')).getByText('Webhook endpoint deleted')).toBeInTheDocument();
    expect(requests).toEqual([{ id: hooks.id }]);
    expect(await (await endpointsTable()).findByText('No webhook endpoints yet')).toBeInTheDocument();
  });

  it("lists an endpoint's deliveries: status, event, attempts, the next attempt and the latest attempts' answers", async () => {
    const asked: string[] = [];
    const pending = buildWebhookDelivery({
      id: 'a1',
      type: 'balance.low',
      status: 'pending',
      attemptCount: 2,
      nextAttemptAt: '2026-11-25T10:05:00.000Z',
      attempts: [
        { at: '2026-11-25T10:01:00.000Z', statusCode: null, error: 'Timed out after 10 s', durationMs: 10_000 },
        { at: '2026-11-25T10:00:00.000Z', statusCode: 500, error: null, durationMs: 120 },
      ],
    });
    const failed = buildWebhookDelivery({ id: 'a2', status: 'failed', attemptCount: 12, attempts: [] });
    server.use(webhooksHandlers.deliveries([pending, buildWebhookDelivery(), failed], { asked }));
    const { user } = renderWebhooks();

    await user.click(await screen.findByRole('button', { name: `Deliveries to ${hooks.url}` }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Deliveries' }));
    const table = within(await dialog.findByRole('table', { name: 'Deliveries' }));
    const rows = (await table.findAllByRole('row')).slice(1);
    expect(asked).toEqual([hooks.id]);
    expect(rows).toHaveLength(3);
    const cells = (row: HTMLElement) =>
      within(row)
        .getAllByRole('cell')
        .map((cell) => cell.textContent);
    expect(cells(rows[0]!)).toEqual([
      'Pending',
      'balance.low',
      formatDateTime(pending.createdAt),
      '2',
      formatDateTime('2026-11-25T10:05:00.000Z'),
      `${formatDateTime('2026-11-25T10:01:00.000Z')}: Timed out after 10 s (10000 ms)${formatDateTime('2026-11-25T10:00:00.000Z')}: HTTP 500 (120 ms)`,
    ]);
    expect(cells(rows[1]!).slice(0, 2)).toEqual(['Succeeded', 'credit.added']);
    expect(cells(rows[1]!)[5]).toBe(`${formatDateTime('2026-11-25T10:00:01.000Z')}: HTTP 200 (84 ms)`);
    expect(cells(rows[2]!)).toEqual(['Failed', 'credit.added', formatDateTime(failed.createdAt), '12', '—', '—']);
  });

  it('says when an endpoint has no deliveries yet', async () => {
    server.use(webhooksHandlers.deliveries([]));
    const { user } = renderWebhooks();

    // The URL itself opens the deliveries too.
    await user.click(await screen.findByRole('button', { name: hooks.url }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Deliveries' }));
    expect(await dialog.findByText('No deliveries yet')).toBeInTheDocument();
  });

  describe('with fake timers', () => {
    const advance = withFakeTimers();

    it('says "Copied" for 2 seconds after copying the secret', async () => {
      server.use(webhooksHandlers.create(buildWebhookEndpoint({ secret })));
      const { user } = renderWebhooks();
      const dialog = await openAdd(user);
      await user.type(dialog.getByLabelText('URL'), 'https://hooks.example.com/x');
      await user.click(dialog.getByRole('checkbox', { name: 'balance.low' }));
      await user.click(dialog.getByRole('button', { name: 'Add endpoint' }));
      await user.click(await dialog.findByRole('button', { name: 'Copy signing secret' }));

      expect(screen.getByRole('tooltip')).toHaveTextContent('Copied');
      await advance(2000);
      await waitFor(() => expect(screen.queryByText('Copied')).not.toBeInTheDocument());
    });
  });
});

describe('/webhooks by role', () => {
  it.each(['owner', 'admin', 'developer'] as const)('shows an %s the Webhooks link, active on the page', async (role) => {
    renderWebhooks([hooks], role);

    const link = await screen.findByRole('link', { name: 'Webhooks' });
    expect(link).toHaveAttribute('href', '/webhooks');
    expect(link).toHaveAttribute('aria-current', 'page');
    expect(await (await endpointsTable()).findByText(hooks.url)).toBeInTheDocument();
  });

  it('shows billing neither the link nor the endpoints, and asks for none', async () => {
    server.use(signedInAs('billing'));
    renderRoute('/webhooks');

    expect(await screen.findByText('Only owners, admins and developers manage the webhooks of an organisation.')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Webhooks' })).not.toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Webhook endpoints' })).not.toBeInTheDocument();
  });
});

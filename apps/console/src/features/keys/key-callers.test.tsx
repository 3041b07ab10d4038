import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { buildKeyBlock, buildKeyCallers, buildPublishableKey, keysHandlers, type RecordedRequest } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { bodyCellTexts } from '../../testing/table';

// A key's callers of the last 24 hours (issue #18): from the keys table, with Block for each.

const webApp = buildPublishableKey();
const callers = buildKeyCallers({
  clientAddresses: [
    { clientAddress: '198.51.100.4', calls: 2000, spend: 0.12, blocked: false },
    { clientAddress: '203.0.113.7', calls: 1250, spend: 3.5, blocked: false },
    { clientAddress: '2001:db8:1:2::/64', calls: 3, spend: 0.01, blocked: true },
  ],
  endUsers: [{ endUser: 'user_42', calls: 900, spend: 2.25, blocked: false }],
});

function renderDashboard(answers: Parameters<typeof keysHandlers.callers>[0] = callers) {
  server.use(meHandlers.signedIn(), keysHandlers.list([webApp]), keysHandlers.callers(answers));
  return renderRoute('/dashboard');
}

type User = ReturnType<typeof renderRoute>['user'];

const toast = (title: 'Wooops!' | 'Success!') => screen.findByText(title).then((element) => element.closest('.mantine-Notification-root') as HTMLElement);

async function openCallers(user: User) {
  await user.click(await screen.findByRole('button', { name: `Callers of ${webApp.name}` }));
  return within(await screen.findByRole('dialog', { name: `Callers of ${webApp.name}` }));
}

describe('/dashboard: callers of a key', () => {
  it('lists the client addresses and end users of the last 24 hours, highest spend first, without opening the key', async () => {
    const { user } = renderDashboard();
    const dialog = await openCallers(user);

    expect(await dialog.findByRole('table', { name: 'Client addresses' })).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Edit publishable key' })).not.toBeInTheDocument();
    expect(dialog.getByText(/^Callers in the last 24 hours, since /)).toBeInTheDocument();
    expect(bodyCellTexts(dialog.getByRole('table', { name: 'Client addresses' }))).toEqual([
      ['203.0.113.7', '1,250', '$3.50', 'Block'],
      ['198.51.100.4', '2,000', '$0.12', 'Block'],
      ['2001:db8:1:2::/64', '3', '$0.01', 'Blocked'],
    ]);
    expect(bodyCellTexts(dialog.getByRole('table', { name: 'End users' }))).toEqual([['user_42', '900', '$2.25', 'Block']]);

    await user.click(dialog.getByRole('radio', { name: 'Most calls first' }));
    expect(bodyCellTexts(dialog.getByRole('table', { name: 'Client addresses' })).map(([address]) => address)).toEqual([
      '198.51.100.4',
      '203.0.113.7',
      '2001:db8:1:2::/64',
    ]);
  });

  it('says so when nothing called the key', async () => {
    const { user } = renderDashboard(buildKeyCallers());
    const dialog = await openCallers(user);

    expect(await dialog.findByText('No client address called this key in the last 24 hours.')).toBeInTheDocument();
    expect(dialog.getByText('No end user called this key in the last 24 hours.')).toBeInTheDocument();
    expect(dialog.queryByRole('table')).not.toBeInTheDocument();
  });

  it('blocks a client address, then shows it Blocked', async () => {
    const requests: RecordedRequest[] = [];
    const blocked = {
      ...callers,
      clientAddresses: callers.clientAddresses.map((row) => (row.clientAddress === '203.0.113.7' ? { ...row, blocked: true } : row)),
    };
    server.use(keysHandlers.block(buildKeyBlock(), { requests }));
    const { user } = renderDashboard([callers, blocked]);
    const dialog = await openCallers(user);

    await user.click(await dialog.findByRole('button', { name: 'Block 203.0.113.7' }));

    expect(within(await toast('Success!')).getByText('203.0.113.7 blocked')).toBeInTheDocument();
    expect(requests).toEqual([{ id: webApp.id, body: { clientAddress: '203.0.113.7' } }]);
    const table = dialog.getByRole('table', { name: 'Client addresses' });
    await expect.poll(() => bodyCellTexts(table)[0]).toEqual(['203.0.113.7', '1,250', '$3.50', 'Blocked']);
    expect(dialog.queryByRole('button', { name: 'Block 203.0.113.7' })).not.toBeInTheDocument();
  });

  it('blocks an IPv6 client by its /64, as the callers list names it', async () => {
    const requests: RecordedRequest[] = [];
    const ipv6 = buildKeyCallers({ clientAddresses: [{ clientAddress: '2001:db8:1:3::/64', calls: 5, spend: 0.5, blocked: false }] });
    server.use(keysHandlers.block(buildKeyBlock({ clientAddress: '2001:db8:1:3::/64' }), { requests }));
    const { user } = renderDashboard([ipv6, { ...ipv6, clientAddresses: [{ ...ipv6.clientAddresses[0]!, blocked: true }] }]);
    const dialog = await openCallers(user);

    await user.click(await dialog.findByRole('button', { name: 'Block 2001:db8:1:3::/64' }));

    expect(await dialog.findByText('Blocked')).toBeInTheDocument();
    expect(requests).toEqual([{ id: webApp.id, body: { clientAddress: '2001:db8:1:3::/64' } }]);
  });

  it('blocks an end user, then shows it Blocked', async () => {
    const requests: RecordedRequest[] = [];
    const blocked = { ...callers, endUsers: [{ ...callers.endUsers[0]!, blocked: true }] };
    server.use(keysHandlers.block(buildKeyBlock({ clientAddress: undefined, endUser: 'user_42' }), { requests }));
    const { user } = renderDashboard([callers, blocked]);
    const dialog = await openCallers(user);

    await user.click(await dialog.findByRole('button', { name: 'Block user_42' }));

    expect(requests).toEqual([{ id: webApp.id, body: { endUser: 'user_42' } }]);
    const table = dialog.getByRole('table', { name: 'End users' });
    await expect.poll(() => bodyCellTexts(table)).toEqual([['user_42', '900', '$2.25', 'Blocked']]);
  });

  it("shows 'Failed to block address' in a 'Wooops!' toast and keeps the Block button", async () => {
    server.use(keysHandlers.block(buildKeyBlock(), { failure: 500 }));
    const { user } = renderDashboard();
    const dialog = await openCallers(user);

    await user.click(await dialog.findByRole('button', { name: 'Block 203.0.113.7' }));

    expect(within(await toast('Wooops!')).getByText('Failed to block address')).toBeInTheDocument();
    expect(dialog.getByRole('button', { name: 'Block 203.0.113.7' })).toBeEnabled();
  });

  it('says so when the callers cannot be loaded', async () => {
    const { user } = renderDashboard();
    server.use(keysHandlers.callers(undefined, { failure: 500 }));
    const dialog = await openCallers(user);

    expect(within(await toast('Wooops!')).getByText('Failed to load callers')).toBeInTheDocument();
    expect(dialog.getByText('Failed to load callers')).toBeInTheDocument();
  });
});

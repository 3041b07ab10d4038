import { screen, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildKeyBlock, buildPublishableKey, keysHandlers, type RecordedRequest } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

// Blocked addresses of a key (issue #18), in the edit modal: listed, added and lifted at once, apart from Save.

// The first render imports Mantine and the route modules; warm them so no test pays that in its timeouts.
beforeAll(async () => {
  await Promise.all([import('./app-layout'), import('./dashboard')]);
});

const webApp = buildPublishableKey();
const ipv4 = buildKeyBlock();
const ipv6 = buildKeyBlock({ id: '7e6d5c4b-3a29-4188-8776-655443322110', clientAddress: '2001:db8:1:2::/64' });

function renderDashboard(blocks: Parameters<typeof keysHandlers.blocks>[0] = [], failure?: number) {
  server.use(meHandlers.signedIn(), keysHandlers.list([webApp]), keysHandlers.models(), keysHandlers.blocks(blocks, { failure }));
  return renderRoute('/dashboard');
}

type User = ReturnType<typeof renderRoute>['user'];

const toast = (title: 'Wooops!' | 'Success!') => screen.findByText(title).then((element) => element.closest('.mantine-Notification-root') as HTMLElement);
const listed = (section: HTMLElement) =>
  within(within(section).getByRole('list', { name: 'Blocked addresses' }))
    .getAllByRole('listitem')
    .map((item) => item.textContent);

async function openBlocks(user: User) {
  await user.click(await screen.findByRole('button', { name: `Edit key ${webApp.name}` }));
  const dialog = await screen.findByRole('dialog', { name: 'Edit publishable key' });
  return within(dialog).getByRole('group', { name: 'Blocked addresses' });
}

describe('/dashboard: blocked addresses of a key', { timeout: 20_000 }, () => {
  it("lists the key's blocked addresses in the edit modal, and none in the create modal", async () => {
    const { user } = renderDashboard([ipv4, ipv6]);
    const section = await openBlocks(user);

    expect(await within(section).findByText('203.0.113.7')).toBeInTheDocument();
    expect(listed(section)).toEqual(['203.0.113.7', '2001:db8:1:2::/64']);
    expect(within(section).getByRole('button', { name: 'Unblock 2001:db8:1:2::/64' })).toBeInTheDocument();

    await user.keyboard('{Escape}');
    await user.click(await screen.findByRole('button', { name: 'New publishable key' }));
    const create = await screen.findByRole('dialog', { name: 'New publishable key' });
    expect(within(create).queryByRole('group', { name: 'Blocked addresses' })).not.toBeInTheDocument();
  });

  it('says when no address is blocked', async () => {
    const { user } = renderDashboard();
    const section = await openBlocks(user);

    expect(await within(section).findByText('No address is blocked.')).toBeInTheDocument();
  });

  it('blocks an address, then shows the list again with it (an IPv6 address as its /64)', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.block(ipv6, { requests }));
    const { user } = renderDashboard([[ipv4], [ipv4, ipv6]]);
    const section = await openBlocks(user);
    await within(section).findByText('203.0.113.7');

    await user.type(within(section).getByLabelText('Address to block'), ' 2001:db8:1:2::abcd ');
    await user.click(within(section).getByRole('button', { name: 'Block' }));

    expect(within(await toast('Success!')).getByText('2001:db8:1:2::/64 blocked')).toBeInTheDocument();
    expect(requests).toEqual([{ id: webApp.id, body: { clientAddress: '2001:db8:1:2::abcd' } }]);
    expect(await within(section).findByText('2001:db8:1:2::/64')).toBeInTheDocument();
    expect(listed(section)).toEqual(['203.0.113.7', '2001:db8:1:2::/64']);
    expect(within(section).getByLabelText('Address to block')).toHaveValue('');
  });

  it('blocks with Enter in the address field, without saving the key', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.block(ipv4, { requests }));
    const { user } = renderDashboard([[], [ipv4]]);
    const section = await openBlocks(user);

    // An unhandled PUT of the key would fail the test.
    await user.type(within(section).getByLabelText('Address to block'), '203.0.113.7{Enter}');

    expect(await within(section).findByText('203.0.113.7')).toBeInTheDocument();
    expect(requests).toHaveLength(1);
    expect(screen.getByRole('dialog', { name: 'Edit publishable key' })).toBeInTheDocument();
  });

  it("refuses what is not an address with the contract's message, without a request", async () => {
    const { user } = renderDashboard();
    const section = await openBlocks(user);

    // An unhandled POST would fail the test.
    await user.type(within(section).getByLabelText('Address to block'), '203.0.113');
    await user.click(within(section).getByRole('button', { name: 'Block' }));

    expect(within(section).getByLabelText('Address to block')).toHaveAccessibleDescription('Enter an IPv4 or IPv6 address');
  });

  it.each([
    [
      'its message for the address (400)',
      400,
      { errors: [{ field: 'clientAddress', message: 'Enter an IPv4 or IPv6 address' }] },
      'Enter an IPv4 or IPv6 address',
    ],
    ['its detail (409)', 409, { detail: '203.0.113.7 is already blocked on this key.' }, '203.0.113.7 is already blocked on this key.'],
  ])("shows under the address why the api refused it: %s, with a 'Wooops!' toast", async (_case, status, refusal, message) => {
    server.use(keysHandlers.block(ipv4, { failure: status, refusal }));
    const { user } = renderDashboard([ipv4]);
    const section = await openBlocks(user);

    await user.type(within(section).getByLabelText('Address to block'), '203.0.113.7');
    await user.click(within(section).getByRole('button', { name: 'Block' }));

    expect(within(await toast('Wooops!')).getByText('Failed to block address')).toBeInTheDocument();
    expect(within(section).getByLabelText('Address to block')).toHaveAccessibleDescription(message);
    expect(within(section).getByLabelText('Address to block')).toHaveValue('203.0.113.7');

    // Typing again clears the old reason.
    await user.type(within(section).getByLabelText('Address to block'), '1');
    expect(within(section).getByLabelText('Address to block')).not.toHaveAccessibleDescription();
  });

  it('unblocks an address, then shows the list again without it', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.unblock({ requests }));
    const { user } = renderDashboard([[ipv4, ipv6], [ipv6]]);
    const section = await openBlocks(user);

    await user.click(await within(section).findByRole('button', { name: 'Unblock 203.0.113.7' }));

    expect(within(await toast('Success!')).getByText('203.0.113.7 unblocked')).toBeInTheDocument();
    expect(requests).toEqual([{ id: ipv4.id }]);
    await expect.poll(() => listed(section)).toEqual(['2001:db8:1:2::/64']);
  });

  it("shows 'Failed to unblock address' in a 'Wooops!' toast when the api refuses", async () => {
    server.use(keysHandlers.unblock({ failure: 500 }));
    const { user } = renderDashboard([ipv4]);
    const section = await openBlocks(user);

    await user.click(await within(section).findByRole('button', { name: 'Unblock 203.0.113.7' }));

    expect(within(await toast('Wooops!')).getByText('Failed to unblock address')).toBeInTheDocument();
    expect(listed(section)).toEqual(['203.0.113.7']);
  });

  it('says so when the blocked addresses cannot be loaded', async () => {
    const { user } = renderDashboard([], 500);
    const section = await openBlocks(user);

    expect(within(await toast('Wooops!')).getByText('Failed to load blocked addresses')).toBeInTheDocument();
    expect(within(section).getByText('Failed to load blocked addresses')).toBeInTheDocument();
  });
});

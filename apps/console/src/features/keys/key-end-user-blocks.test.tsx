import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { buildKeyBlock, buildPublishableKey, keysHandlers, type RecordedRequest } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

// Blocked end users of a key (issue #18), in the edit modal beside the blocked addresses.

const webApp = buildPublishableKey();
const address = buildKeyBlock();
const endUser = buildKeyBlock({ id: '8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d', clientAddress: undefined, endUser: 'user_42' });

function renderDashboard(blocks: Parameters<typeof keysHandlers.blocks>[0] = []) {
  server.use(meHandlers.signedIn(), keysHandlers.list([webApp]), keysHandlers.models(), keysHandlers.blocks(blocks));
  return renderRoute('/dashboard');
}

type User = ReturnType<typeof renderRoute>['user'];

const toast = (title: 'Wooops!' | 'Success!') => screen.findByText(title).then((element) => element.closest('.mantine-Notification-root') as HTMLElement);
const listed = (section: HTMLElement, name: string) =>
  within(within(section).getByRole('list', { name }))
    .getAllByRole('listitem')
    .map((item) => item.textContent);

async function openEdit(user: User) {
  await user.click(await screen.findByRole('button', { name: `Edit key ${webApp.name}` }));
  return screen.findByRole('dialog', { name: 'Edit publishable key' });
}

const endUsersOf = (dialog: HTMLElement) => within(dialog).getByRole('group', { name: 'Blocked end users' });

describe('/dashboard: blocked end users of a key', () => {
  it('lists end-user blocks apart from address blocks', async () => {
    const { user } = renderDashboard([address, endUser]);
    const dialog = await openEdit(user);
    const addresses = within(dialog).getByRole('group', { name: 'Blocked addresses' });
    const endUsers = endUsersOf(dialog);

    expect(await within(endUsers).findByText('user_42')).toBeInTheDocument();
    expect(listed(endUsers, 'Blocked end users')).toEqual(['user_42']);
    expect(listed(addresses, 'Blocked addresses')).toEqual(['203.0.113.7']);
    expect(within(endUsers).getByRole('button', { name: 'Unblock user_42' })).toBeInTheDocument();
  });

  it('says when no end user is blocked', async () => {
    const { user } = renderDashboard([address]);
    const endUsers = endUsersOf(await openEdit(user));

    expect(await within(endUsers).findByText('No end user is blocked.')).toBeInTheDocument();
  });

  it('blocks an end user by id, then lists it', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.block(endUser, { requests }));
    const { user } = renderDashboard([[address], [address, endUser]]);
    const endUsers = endUsersOf(await openEdit(user));
    await within(endUsers).findByText('No end user is blocked.');

    await user.type(within(endUsers).getByLabelText('End user to block'), ' user_42 ');
    await user.click(within(endUsers).getByRole('button', { name: 'Block' }));

    expect(within(await toast('Success!')).getByText('user_42 blocked')).toBeInTheDocument();
    expect(requests).toEqual([{ id: webApp.id, body: { endUser: 'user_42' } }]);
    expect(await within(endUsers).findByText('user_42')).toBeInTheDocument();
    expect(within(endUsers).getByLabelText('End user to block')).toHaveValue('');
  });

  it("refuses an empty end user with the contract's message, without a request", async () => {
    const { user } = renderDashboard();
    const endUsers = endUsersOf(await openEdit(user));

    // An unhandled POST would fail the test.
    await user.type(within(endUsers).getByLabelText('End user to block'), '   {Enter}');

    expect(within(endUsers).getByLabelText('End user to block')).toHaveAccessibleDescription('Enter the end user (the sub of their token)');
    expect(screen.getByRole('dialog', { name: 'Edit publishable key' })).toBeInTheDocument();
  });

  it.each([
    ['its message for the end user (400)', 400, { errors: [{ field: 'endUser', message: 'Maximum length is 255' }] }, 'Maximum length is 255'],
    ['its detail (409)', 409, { detail: 'user_42 is already blocked on this key.' }, 'user_42 is already blocked on this key.'],
  ])("shows under the end user why the api refused it: %s, with a 'Wooops!' toast", async (_case, status, refusal, message) => {
    server.use(keysHandlers.block(endUser, { failure: status, refusal }));
    const { user } = renderDashboard();
    const endUsers = endUsersOf(await openEdit(user));

    await user.type(within(endUsers).getByLabelText('End user to block'), 'user_42');
    await user.click(within(endUsers).getByRole('button', { name: 'Block' }));

    expect(within(await toast('Wooops!')).getByText('Failed to block end user')).toBeInTheDocument();
    expect(within(endUsers).getByLabelText('End user to block')).toHaveAccessibleDescription(message);
    expect(within(endUsers).getByLabelText('End user to block')).toHaveValue('user_42');
  });

  it('unblocks an end user', async () => {
    const requests: RecordedRequest[] = [];
    server.use(keysHandlers.unblock({ requests }));
    const { user } = renderDashboard([[address, endUser], [address]]);
    const endUsers = endUsersOf(await openEdit(user));

    await user.click(await within(endUsers).findByRole('button', { name: 'Unblock user_42' }));

    expect(within(await toast('Success!')).getByText('user_42 unblocked')).toBeInTheDocument();
    expect(requests).toEqual([{ id: endUser.id }]);
    expect(await within(endUsers).findByText('No end user is blocked.')).toBeInTheDocument();
  });
});

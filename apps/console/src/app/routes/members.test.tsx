import { screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { buildInvitation, buildMember, membersHandlers } from '../../testing/members-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { bodyCellTexts } from '../../testing/table';

// The first render imports Mantine and the route modules; warm them so no test pays that in its timeouts.
beforeAll(() => Promise.all([import('./app-layout'), import('./members')]), 30_000);

const ada = buildMember();
const grace = buildMember({
  personId: '8f7e6d5c-4b3a-4291-8e0f-7e6d5c4b3a29',
  email: 'grace@example.com',
  role: 'developer',
  joinedAt: '2026-02-03T08:09:10.000Z',
});
const pending = buildInvitation({ email: 'linus@example.com', role: 'billing' });

function renderMembers(answers: Parameters<typeof membersHandlers.list>[0] = { members: [ada, grace], invitations: [pending] }) {
  server.use(meHandlers.signedIn(), membersHandlers.list(answers));
  return renderRoute('/members');
}

const membersTable = () => screen.getByRole('table', { name: 'Members' });
const invitationsTable = () => screen.getByRole('table', { name: 'Pending invitations' });
const toast = (title: 'Wooops!' | 'Success!') => screen.findByText(title).then((element) => element.closest('.mantine-Notification-root') as HTMLElement);

describe('/members: the lists', () => {
  it('says "Loading..." in both tables until the list arrives', async () => {
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    server.use(meHandlers.signedIn(), membersHandlers.list({ members: [ada], invitations: [] }, { until: answered }));
    renderRoute('/members');

    await screen.findByRole('heading', { name: 'Members', level: 1 });
    expect(within(membersTable()).getByText('Loading...')).toBeInTheDocument();
    expect(within(invitationsTable()).getByText('Loading...')).toBeInTheDocument();
    answer();
    expect(await within(membersTable()).findByText('ada@example.com')).toBeInTheDocument();
    expect(screen.queryByText('Loading...')).not.toBeInTheDocument();
  });

  it('lists the members with their role and joined date, marking the signed-in person, and the pending invitations', async () => {
    renderMembers();

    await within(await screen.findByRole('table', { name: 'Members' })).findByText('grace@example.com');
    expect(
      within(membersTable())
        .getAllByRole('columnheader')
        .map((header) => header.textContent),
    ).toEqual(['Email', 'Role', 'Joined', '']);
    const [adaRow, graceRow] = bodyCellTexts(membersTable());
    expect(screen.getByRole('main')).toHaveTextContent('Analytical Engines');
    expect(adaRow![0]).toBe('ada@example.com (you)');
    expect(adaRow![2]).toContain('2026');
    expect(graceRow![0]).toBe('grace@example.com');
    expect(screen.getByRole('combobox', { name: 'Role of ada@example.com' })).toHaveValue('Owner');
    // Oneself leaves from the avatar menu instead.
    expect(screen.queryByRole('button', { name: 'Remove ada@example.com' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Remove grace@example.com' })).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Role of grace@example.com' })).toHaveValue('Developer');

    expect(
      within(invitationsTable())
        .getAllByRole('columnheader')
        .map((header) => header.textContent),
    ).toEqual(['Email', 'Role', 'Expires', '']);
    const [invitation] = bodyCellTexts(invitationsTable());
    expect(invitation!.slice(0, 2)).toEqual(['linus@example.com', 'Billing']);
    expect(invitation![2]).toContain('2026');
  });

  it('says "No pending invitations" when nobody is invited', async () => {
    renderMembers({ members: [ada], invitations: [] });

    expect(await within(await screen.findByRole('table', { name: 'Pending invitations' })).findByText('No pending invitations')).toBeInTheDocument();
  });

  it("says the list could not be loaded, with a 'Wooops!' toast", async () => {
    server.use(meHandlers.signedIn(), membersHandlers.listFailure(500));
    renderRoute('/members');

    expect(within(await toast('Wooops!')).getByText('Failed to load members')).toBeInTheDocument();
    expect(within(membersTable()).getByText('Failed to load members')).toBeInTheDocument();
  });

  it('is for owners and admins only: a developer is told so and nothing is asked', async () => {
    server.use(meHandlers.signedIn({ role: 'developer' }));
    renderRoute('/members');

    expect(await screen.findByText('Only owners and admins manage the members of an organisation.')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });
});

describe('/members: inviting', () => {
  it("shows the spec's messages for the e-mail and sends nothing until it is valid", async () => {
    const requests: RecordedRequest[] = [];
    server.use(membersHandlers.invite({ requests }));
    const { user } = renderMembers();
    const email = await screen.findByRole('textbox', { name: 'E-mail' });
    const invite = screen.getByRole('button', { name: 'Invite' });

    await user.click(invite);
    expect(await screen.findByText('This field is required')).toBeInTheDocument();

    await user.type(email, 'ab');
    await user.click(invite);
    expect(await screen.findByText('Minimum length is 3')).toBeInTheDocument();

    await user.clear(email);
    await user.type(email, 'not-an-address');
    await user.click(invite);
    expect(await screen.findByText('Enter a valid e-mail address')).toBeInTheDocument();

    await user.clear(email);
    await user.type(email, `${'a'.repeat(95)}@example.com`);
    await user.click(invite);
    expect(await screen.findByText('Maximum length is 100')).toBeInTheDocument();
    expect(requests).toEqual([]);
  });

  it('invites the address (lower case) with the chosen role, says so and lists the invitation', async () => {
    const requests: RecordedRequest[] = [];
    const invited = buildInvitation({ invitationId: '0f1e2d3c-4b5a-4697-8877-665544332211', email: 'alan@example.com', role: 'admin' });
    server.use(
      meHandlers.signedIn(),
      membersHandlers.list([
        { members: [ada], invitations: [] },
        { members: [ada], invitations: [invited] },
      ]),
      membersHandlers.invite({ requests }),
    );
    const { user } = renderRoute('/members');

    await user.type(await screen.findByRole('textbox', { name: 'E-mail' }), ' Alan@Example.com ');
    await user.click(screen.getByRole('combobox', { name: 'Role' }));
    await user.click(await screen.findByRole('option', { name: 'Admin' }));
    await user.click(screen.getByRole('button', { name: 'Invite' }));

    expect(within(await toast('Success!')).getByText('Invitation sent to alan@example.com')).toBeInTheDocument();
    expect(requests).toEqual([{ body: { email: 'alan@example.com', role: 'admin' } }]);
    expect(await within(invitationsTable()).findByText('alan@example.com')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'E-mail' })).toHaveValue('');
  });

  it("shows the api's refusal in a 'Wooops!' toast (an address already a member)", async () => {
    server.use(membersHandlers.invite({ failure: 409, refusal: { detail: 'grace@example.com is already a member' } }));
    const { user } = renderMembers();

    await user.type(await screen.findByRole('textbox', { name: 'E-mail' }), 'grace@example.com');
    await user.click(screen.getByRole('button', { name: 'Invite' }));

    expect(within(await toast('Wooops!')).getByText('Failed to send the invitation: grace@example.com is already a member')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'E-mail' })).toHaveValue('grace@example.com');
  });
});

describe('/members: roles and removal', () => {
  it('changes a role at once and says so', async () => {
    const requests: RecordedRequest[] = [];
    server.use(
      meHandlers.signedIn(),
      membersHandlers.list([
        { members: [ada, grace], invitations: [] },
        { members: [ada, { ...grace, role: 'billing' }], invitations: [] },
      ]),
      membersHandlers.changeRole({ requests }),
    );
    const { user } = renderRoute('/members');

    await user.click(await screen.findByRole('combobox', { name: 'Role of grace@example.com' }));
    await user.click(await screen.findByRole('option', { name: 'Billing' }));

    expect(within(await toast('Success!')).getByText('grace@example.com is now Billing')).toBeInTheDocument();
    expect(requests).toEqual([{ id: grace.personId, body: { role: 'billing' } }]);
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Role of grace@example.com' })).toHaveValue('Billing'));
  });

  it("shows the api's 409 when a change would leave no owner, and keeps the role", async () => {
    server.use(membersHandlers.changeRole({ failure: 409, refusal: { detail: 'An organisation keeps at least one owner' } }));
    const { user } = renderMembers({ members: [ada, grace], invitations: [] });

    await user.click(await screen.findByRole('combobox', { name: 'Role of ada@example.com' }));
    await user.click(await screen.findByRole('option', { name: 'Admin' }));

    expect(within(await toast('Wooops!')).getByText('Failed to change the role: An organisation keeps at least one owner')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Role of ada@example.com' })).toHaveValue('Owner'));
  });

  it('removes a member after asking', async () => {
    const requests: RecordedRequest[] = [];
    server.use(
      meHandlers.signedIn(),
      membersHandlers.list([
        { members: [ada, grace], invitations: [] },
        { members: [ada], invitations: [] },
      ]),
      membersHandlers.remove({ requests }),
    );
    const { user } = renderRoute('/members');

    await user.click(await screen.findByRole('button', { name: 'Remove grace@example.com' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove member' });
    expect(dialog).toHaveTextContent('Remove grace@example.com from the organisation?');
    expect(requests).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));

    expect(within(await toast('Success!')).getByText('grace@example.com removed')).toBeInTheDocument();
    expect(requests).toEqual([{ id: grace.personId }]);
    await waitFor(() => expect(within(membersTable()).queryByText('grace@example.com')).not.toBeInTheDocument());
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('lists the keys a member made in the question and deletes them with the removal only when asked (issue #53)', async () => {
    const keysMade = [
      { id: '3c5e7a9b-1d3f-4a5c-8e7a-9b1d3f5a7c9e', name: 'Storefront', kind: 'publishable' as const, scope: null },
      { id: '4d6f8b0c-2e4a-4b6d-9f8b-0c2e4a6b8d0f', name: 'Reports', kind: 'secret' as const, scope: 'admin' as const },
    ];
    const requests: RecordedRequest[] = [];
    server.use(membersHandlers.remove({ requests }));
    const { user } = renderMembers({ members: [ada, { ...grace, keysMade }], invitations: [] });

    await user.click(await screen.findByRole('button', { name: 'Remove grace@example.com' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove member' });
    expect(within(dialog).getByText('They made these 2 keys, and may have a copy:')).toBeInTheDocument();
    expect(
      within(within(dialog).getByRole('list', { name: 'Keys they made' }))
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['Storefront (publishable key)', 'Reports (secret key, Admin scope)']);
    await user.click(within(dialog).getByRole('checkbox', { name: 'Delete these keys too' }));
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));

    expect(within(await toast('Success!')).getByText('grace@example.com removed, with the keys they made')).toBeInTheDocument();
    expect(requests).toEqual([{ id: grace.personId, search: '?keys=delete' }]);
  });

  it('removes nobody when the question is cancelled', async () => {
    const requests: RecordedRequest[] = [];
    server.use(membersHandlers.remove({ requests }));
    const { user } = renderMembers();

    await user.click(await screen.findByRole('button', { name: 'Remove grace@example.com' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Remove member' })).getByRole('button', { name: 'Cancel' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(requests).toEqual([]);
  });

  it("keeps the question open with a 'Wooops!' toast when removing fails", async () => {
    server.use(membersHandlers.remove({ failure: 500 }));
    const { user } = renderMembers();

    await user.click(await screen.findByRole('button', { name: 'Remove grace@example.com' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove member' });
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));

    expect(within(await toast('Wooops!')).getByText('Failed to remove the member')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Remove member' })).toBeInTheDocument();
  });
});

describe('/members: pending invitations', () => {
  it('resends an invitation and says so', async () => {
    const requests: RecordedRequest[] = [];
    server.use(membersHandlers.resend({ requests }));
    const { user } = renderMembers();

    await user.click(await screen.findByRole('button', { name: 'Resend invitation for linus@example.com' }));

    expect(within(await toast('Success!')).getByText('Invitation resent to linus@example.com')).toBeInTheDocument();
    expect(requests).toEqual([{ id: pending.invitationId }]);
  });

  it("says 'Wooops!' when resending fails", async () => {
    server.use(membersHandlers.resend({ failure: 503, refusal: { detail: 'The mail could not be sent' } }));
    const { user } = renderMembers();

    await user.click(await screen.findByRole('button', { name: 'Resend invitation for linus@example.com' }));

    // A 5xx keeps its words to itself.
    expect(within(await toast('Wooops!')).getByText('Failed to resend the invitation')).toBeInTheDocument();
  });

  it('revokes an invitation after asking, and the list says none is pending', async () => {
    const requests: RecordedRequest[] = [];
    server.use(
      meHandlers.signedIn(),
      membersHandlers.list([
        { members: [ada], invitations: [pending] },
        { members: [ada], invitations: [] },
      ]),
      membersHandlers.revoke({ requests }),
    );
    const { user } = renderRoute('/members');

    await user.click(await screen.findByRole('button', { name: 'Revoke invitation for linus@example.com' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke invitation' });
    await user.click(within(dialog).getByRole('button', { name: 'Revoke' }));

    expect(within(await toast('Success!')).getByText('Invitation for linus@example.com revoked')).toBeInTheDocument();
    expect(requests).toEqual([{ id: pending.invitationId }]);
    expect(await within(invitationsTable()).findByText('No pending invitations')).toBeInTheDocument();
  });
});

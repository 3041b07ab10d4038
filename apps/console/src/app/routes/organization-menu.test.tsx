import { screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Me } from '@meterway/contracts';
import type { RecordedRequest } from '../../testing/keys-handlers';
import { HttpResponse, http } from 'msw';
import { showOrganizationInTab, tabOrganization } from '../../lib/tab-organization';
import { buildMe, meHandlers } from '../../testing/me-handlers';
import { testRuntimeConfig } from '../../testing/runtime-config';
import { buildMembership, organizationsHandlers } from '../../testing/members-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

// The avatar menu's organisations (issue #21). The shell is real; the screens are stand-ins.
vi.mock('./dashboard', () => ({ Component: () => <h1>dashboard screen</h1> }));
vi.mock('./chat-completions', () => ({ Component: () => <h1>chat-completions screen</h1> }));
vi.mock('./members', () => ({ Component: () => <h1>members screen</h1> }));
vi.mock('./audit-log', () => ({ Component: () => <h1>audit-log screen</h1> }));

beforeAll(() => Promise.all([import('./app-layout'), import('./dashboard')]), 30_000);

const analytical = { organizationId: 'org_01', organizationName: 'Analytical Engines', role: 'owner' } as const;
const difference = buildMembership();
const both: Partial<Me> = { organizations: [analytical, difference] };
/** /bff/me once the session is in Difference Engines. */
const inDifference: Partial<Me> = { ...both, organizationId: difference.organizationId, organizationName: difference.organizationName, role: 'developer' };

async function openMenu(user: ReturnType<typeof renderRoute>['user']) {
  await user.click(await screen.findByRole('button', { name: 'Account menu' }));
  return within(await screen.findByRole('menu'));
}

const toast = (title: 'Wooops!' | 'Success!') => screen.findByText(title).then((element) => element.closest('.mantine-Notification-root') as HTMLElement);

describe('the organisation switcher', () => {
  it("lists the person's organisations with their role, the current one checked", async () => {
    server.use(meHandlers.signedIn(both));
    const { user } = renderRoute('/dashboard');

    const menu = await openMenu(user);
    expect(menu.getByRole('menuitem', { name: 'Analytical Engines (Owner)' })).toHaveAttribute('aria-current', 'true');
    expect(menu.getByRole('menuitem', { name: 'Difference Engines (Developer)' })).not.toHaveAttribute('aria-current');
  });

  it('switches: PUT current-organization, then /bff/me again, and the dashboard of the new organisation', async () => {
    const requests: RecordedRequest[] = [];
    let meCalls = 0;
    const count = ({ request }: { request: Request }) => {
      if (new URL(request.url).pathname === '/bff/me') meCalls++;
    };
    server.events.on('request:start', count);
    server.use(meHandlers.sequence(both, inDifference), organizationsHandlers.switchTo(difference, { requests }));
    const { user, router } = renderRoute('/chat-completions');

    await user.click((await openMenu(user)).getByRole('menuitem', { name: 'Difference Engines (Developer)' }));

    expect(within(await toast('Success!')).getByText('Switched to Difference Engines')).toBeInTheDocument();
    expect(requests).toEqual([{ body: { organizationId: difference.organizationId } }]);
    expect(await screen.findByRole('heading', { name: 'dashboard screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    // The top bar answers for the new organisation.
    await waitFor(() => expect(screen.getByRole('banner')).toHaveTextContent('Difference Engines'));
    expect(meCalls).toBe(2);
    server.events.removeListener('request:start', count);
  });

  it('keeps its own organisation: a new tab takes the current one, and after a switch here its requests name the new one', async () => {
    const named: (string | null)[] = [];
    const note = ({ request }: { request: Request }) => {
      if (new URL(request.url).pathname === '/bff/me') named.push(request.headers.get('meterway-organization'));
    };
    server.events.on('request:start', note);
    server.use(meHandlers.sequence(both, inDifference), organizationsHandlers.switchTo(difference));
    const { user } = renderRoute('/dashboard');

    await user.click((await openMenu(user)).getByRole('menuitem', { name: 'Difference Engines (Developer)' }));
    await waitFor(() => expect(screen.getByRole('banner')).toHaveTextContent('Difference Engines'));
    expect(named).toEqual([null, difference.organizationId]);
    expect(tabOrganization()).toBe(difference.organizationId);
    server.events.removeListener('request:start', note);
  });

  it('says so when the person left the organisation this tab shows, and shows their current one', async () => {
    showOrganizationInTab('org_left_meanwhile');
    const detail = 'You are no longer a member of the organisation this tab was showing, so it did nothing there. It now shows Analytical Engines.';
    server.use(
      http.get(`${testRuntimeConfig.apiUrls['http://localhost:3000']}/bff/me`, ({ request }) =>
        request.headers.get('meterway-organization') === 'org_left_meanwhile'
          ? HttpResponse.json(
              { type: 'about:blank', title: 'Conflict', status: 409, code: 'OrganizationLeft', organizationId: 'org_left_meanwhile', detail },
              { status: 409, headers: { 'content-type': 'application/problem+json' } },
            )
          : HttpResponse.json(buildMe(both)),
      ),
    );
    renderRoute('/dashboard');

    expect(within(await toast('Wooops!')).getByText(detail)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('banner')).toHaveTextContent('Analytical Engines'));
    expect(tabOrganization()).toBe(analytical.organizationId);
  });

  it('asks nothing when the current organisation is chosen', async () => {
    const requests: RecordedRequest[] = [];
    server.use(meHandlers.signedIn(both), organizationsHandlers.switchTo(difference, { requests }));
    const { user } = renderRoute('/dashboard');

    await user.click((await openMenu(user)).getByRole('menuitem', { name: 'Analytical Engines (Owner)' }));

    await waitFor(() => expect(screen.queryByRole('menu')).not.toBeInTheDocument());
    expect(requests).toEqual([]);
  });

  it("stays where it is with a 'Wooops!' toast when the switch is refused", async () => {
    server.use(
      meHandlers.signedIn(both),
      organizationsHandlers.switchTo(difference, { failure: 404, refusal: { detail: 'You are not a member of that organisation' } }),
    );
    const { user, router } = renderRoute('/chat-completions');

    await user.click((await openMenu(user)).getByRole('menuitem', { name: 'Difference Engines (Developer)' }));

    expect(within(await toast('Wooops!')).getByText('Failed to switch organisation: You are not a member of that organisation')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/chat-completions');
    expect(screen.getByRole('banner')).toHaveTextContent('Analytical Engines');
  });
});

describe('Members and Audit log in the menu', () => {
  it.each(['owner', 'admin'] as const)('are there for an %s, and lead to their screens', async (role) => {
    server.use(meHandlers.signedIn({ role }));
    const { user, router } = renderRoute('/dashboard');

    await user.click((await openMenu(user)).getByRole('menuitem', { name: 'Members' }));
    expect(await screen.findByRole('heading', { name: 'members screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/members');

    await user.click((await openMenu(user)).getByRole('menuitem', { name: 'Audit log' }));
    expect(await screen.findByRole('heading', { name: 'audit-log screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/audit-log');
  });

  it.each(['developer', 'billing'] as const)('are not there for %s', async (role) => {
    server.use(meHandlers.signedIn({ role }));
    const { user } = renderRoute('/dashboard');

    const menu = await openMenu(user);
    expect(menu.queryByRole('menuitem', { name: 'Members' })).not.toBeInTheDocument();
    expect(menu.queryByRole('menuitem', { name: 'Audit log' })).not.toBeInTheDocument();
  });
});

describe('New organisation', () => {
  it('asks for a name with the messages of the contract, creates it and lands on its dashboard', async () => {
    const requests: RecordedRequest[] = [];
    const created: Partial<Me> = {
      organizationId: '3c4d5e6f-7081-4293-a4b5-c6d7e8f90a1b',
      organizationName: 'Babbage & Co',
      organizations: [analytical, { organizationId: '3c4d5e6f-7081-4293-a4b5-c6d7e8f90a1b', organizationName: 'Babbage & Co', role: 'owner' }],
    };
    server.use(meHandlers.sequence({}, created), organizationsHandlers.create({ requests }));
    const { user, router } = renderRoute('/chat-completions');

    await user.click((await openMenu(user)).getByRole('menuitem', { name: 'New organisation' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New organisation' }));
    await user.click(dialog.getByRole('button', { name: 'Create' }));
    expect(await dialog.findByText('This field is required')).toBeInTheDocument();
    await user.type(dialog.getByRole('textbox', { name: 'Name' }), 'Bc');
    await user.click(dialog.getByRole('button', { name: 'Create' }));
    expect(await dialog.findByText('Minimum length is 3')).toBeInTheDocument();
    expect(requests).toEqual([]);

    await user.clear(dialog.getByRole('textbox', { name: 'Name' }));
    await user.type(dialog.getByRole('textbox', { name: 'Name' }), '  Babbage & Co ');
    await user.click(dialog.getByRole('button', { name: 'Create' }));

    expect(within(await toast('Success!')).getByText('Organisation Babbage & Co created')).toBeInTheDocument();
    expect(requests).toEqual([{ body: { name: 'Babbage & Co' } }]);
    expect(await screen.findByRole('heading', { name: 'dashboard screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    await waitFor(() => expect(screen.getByRole('banner')).toHaveTextContent('Babbage & Co'));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it("keeps the modal open with a 'Wooops!' toast when creating fails", async () => {
    server.use(meHandlers.signedIn(), organizationsHandlers.create({ failure: 500 }));
    const { user } = renderRoute('/dashboard');

    await user.click((await openMenu(user)).getByRole('menuitem', { name: 'New organisation' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'New organisation' }));
    await user.type(dialog.getByRole('textbox', { name: 'Name' }), 'Babbage & Co');
    await user.click(dialog.getByRole('button', { name: 'Create' }));

    expect(within(await toast('Wooops!')).getByText('Failed to create the organisation')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'New organisation' })).toBeInTheDocument();
  });
});

describe('Leave organisation', () => {
  it('is offered only to a person with another organisation to be in', async () => {
    server.use(meHandlers.signedIn());
    const { user } = renderRoute('/dashboard');

    expect((await openMenu(user)).queryByRole('menuitem', { name: 'Leave organisation' })).not.toBeInTheDocument();
  });

  it('asks, leaves the current organisation and lands on the dashboard of the one the api says', async () => {
    const requests: RecordedRequest[] = [];
    server.use(meHandlers.sequence(both, inDifference), organizationsHandlers.leave(difference, { requests }));
    const { user, router } = renderRoute('/chat-completions');

    await user.click((await openMenu(user)).getByRole('menuitem', { name: 'Leave organisation' }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave organisation' });
    expect(dialog).toHaveTextContent('Leave Analytical Engines?');
    expect(requests).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Leave' }));

    expect(within(await toast('Success!')).getByText('You left Analytical Engines')).toBeInTheDocument();
    expect(requests).toEqual([{ id: 'org_01' }]);
    expect(await screen.findByRole('heading', { name: 'dashboard screen' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    await waitFor(() => expect(screen.getByRole('banner')).toHaveTextContent('Difference Engines'));
  });

  it("shows the api's 409 for the last owner and stays", async () => {
    server.use(
      meHandlers.signedIn(both),
      organizationsHandlers.leave(difference, { failure: 409, refusal: { detail: 'An organisation keeps at least one owner' } }),
    );
    const { user } = renderRoute('/dashboard');

    await user.click((await openMenu(user)).getByRole('menuitem', { name: 'Leave organisation' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Leave organisation' })).getByRole('button', { name: 'Leave' }));

    expect(within(await toast('Wooops!')).getByText('Failed to leave the organisation: An organisation keeps at least one owner')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Leave organisation' })).toBeInTheDocument();
  });
});

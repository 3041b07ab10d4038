import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../lib/logger';
import { adminHandlers, refusal } from '../../testing/admin-handlers';
import { buildPerson, listsHandlers, pageOf, problem } from '../../testing/lists-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

// Loads the lazy route modules once, so no test's first render waits on their transform.
beforeAll(() => Promise.all([import('./app-layout'), import('./admin-users'), import('./admin')]), 30_000);

describe('/admin/users', () => {
  it('lists users with ID, Email and Created at in 24-hour time, asking for 100 newest first', async () => {
    const sent: URLSearchParams[] = [];
    server.use(
      meHandlers.admin(),
      listsHandlers.persons((query) => {
        sent.push(query);
        return pageOf([buildPerson({ createdAt: '2026-01-02T19:08:09.000Z' })]);
      }),
    );
    renderRoute('/admin/users');

    const table = await screen.findByRole('table', { name: 'Users' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['ID', 'Email', 'Organisations', 'Created at', 'Actions']);
    const [id, email, , createdAt] = within(within(table).getAllByRole('row')[1]!)
      .getAllByRole('cell')
      .map((cell) => cell.textContent);
    expect([id, email]).toEqual(['0b9e2c1d-6a4f-4e8b-9c3d-1e2f3a4b5c6d', 'grace@example.com']);
    const created = new Date('2026-01-02T19:08:09.000Z');
    expect(createdAt).toContain(`${String(created.getHours()).padStart(2, '0')}:08:09`);
    expect(createdAt).not.toMatch(/AM|PM/i);
    expect(Object.fromEntries(sent[0]!)).toEqual({ asc: 'false', limit: '100', searchString: '' });
  });

  it('marks the people of an organisation that owes after a refund or dispute', async () => {
    server.use(
      meHandlers.admin(),
      listsHandlers.persons(
        pageOf([buildPerson({ id: 'p-owes', email: 'owes@example.com', owedAmount: 8.25 }), buildPerson({ id: 'p-clear', email: 'clear@example.com' })]),
      ),
    );
    renderRoute('/admin/users');

    const table = await screen.findByRole('table', { name: 'Users' });
    const emails = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((row) => within(row).getAllByRole('cell')[1]?.textContent);
    expect(emails).toEqual(['owes@example.comOwes $8.25', 'clear@example.com']);
  });

  it("lists each person's organisations with their role in each", async () => {
    server.use(
      meHandlers.admin(),
      listsHandlers.persons(
        pageOf([
          buildPerson({
            id: 'p-two',
            organizations: [
              { organizationId: 'o1', organizationName: 'Compilers Inc', role: 'owner' },
              { organizationId: 'o2', organizationName: 'Analytical Engines', role: 'developer' },
            ],
          }),
          buildPerson({ id: 'p-none', email: 'gone@example.com', organizations: [] }),
        ]),
      ),
    );
    renderRoute('/admin/users');

    const table = await screen.findByRole('table', { name: 'Users' });
    const organisations = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((row) => within(row).getAllByRole('cell')[2]?.textContent);
    expect(organisations).toEqual(['Compilers Inc (owner)Analytical Engines (developer)', '—']);
  });

  it('has breadcrumbs Admin › Users leading back to the admin home', async () => {
    server.use(meHandlers.admin(), listsHandlers.persons(pageOf([])));
    const { user, router } = renderRoute('/admin/users');

    const breadcrumbs = await screen.findByRole('navigation', { name: 'Breadcrumbs' });
    expect(breadcrumbs).toHaveTextContent('Admin›Users');
    const admin = within(breadcrumbs).getByRole('link', { name: 'Admin' });
    expect(admin).toHaveAttribute('href', '/admin');

    await user.click(admin);
    expect(await screen.findByRole('heading', { name: 'Admin' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/admin');
  });

  it('says "Loading..." and then "No users found" for an empty list', async () => {
    server.use(meHandlers.admin(), listsHandlers.persons(pageOf([])));
    renderRoute('/admin/users');

    expect(await screen.findByText('Loading...')).toBeInTheDocument();
    expect(await screen.findByText('No users found')).toBeInTheDocument();
    expect(screen.queryByText('Loading...')).not.toBeInTheDocument();
  });

  it('pages to the next users with the token', async () => {
    const sent: URLSearchParams[] = [];
    server.use(
      meHandlers.admin(),
      listsHandlers.persons((query) => {
        sent.push(query);
        return query.get('nextPageToken') === 'tok-2'
          ? pageOf([buildPerson({ id: 'p2', email: 'second@example.com' })], { previousPageToken: 'tok-1' })
          : pageOf([buildPerson({ id: 'p1', email: 'first@example.com' })], { nextPageToken: 'tok-2' });
      }),
    );
    const { user } = renderRoute('/admin/users');

    await user.click(await screen.findByRole('button', { name: 'Next' }));

    expect(await screen.findByText('second@example.com')).toBeInTheDocument();
    expect(screen.getByText('Page 2')).toBeInTheDocument();
    expect(sent.at(-1)!.get('nextPageToken')).toBe('tok-2');
  });

  it('explains a 403 instead of showing an empty page, and logs "Failed to load persons" without a toast', async () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {});
    server.use(meHandlers.signedIn(), listsHandlers.persons(problem(403)));
    renderRoute('/admin/users');

    expect(await screen.findByText('You do not have access to the admin area')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    expect(warn).toHaveBeenCalledWith('Failed to load persons', expect.objectContaining({ status: 403 }));
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();
  });

  describe('Grant credit', () => {
    async function openGrant() {
      const view = renderRoute('/admin/users');
      await view.user.click(await screen.findByRole('button', { name: 'Grant credit to grace@example.com' }));
      return { ...view, dialog: await screen.findByRole('dialog', { name: 'Grant credit' }) };
    }
    // A date input takes a whole value at once (typing it key by key passes through invalid ones).
    const setLastDay = (dialog: HTMLElement, value: string) => fireEvent.change(within(dialog).getByLabelText(/Last day/), { target: { value } });

    it("grants promotional credit to the person's organisation: amount, note and last day, then says so", async () => {
      const requests: { personId: string; body: unknown }[] = [];
      server.use(meHandlers.admin(), listsHandlers.persons(pageOf([buildPerson()])), adminHandlers.grantCredit({ requests }));
      const { user, dialog } = await openGrant();

      await user.type(within(dialog).getByRole('textbox', { name: /Amount/ }), '25');
      await user.type(within(dialog).getByRole('textbox', { name: /Note/ }), 'trial');
      setLastDay(dialog, '2099-12-31');
      await user.click(within(dialog).getByRole('button', { name: 'Grant credit' }));

      expect(await screen.findByText('Granted $25.00 of promotional credit to Compilers Inc.')).toBeInTheDocument();
      expect(requests).toEqual([{ personId: '0b9e2c1d-6a4f-4e8b-9c3d-1e2f3a4b5c6d', body: { amount: 25, note: 'trial', expiresOn: '2099-12-31' } }]);
      await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Grant credit' })).not.toBeInTheDocument());
    });

    it('says what is missing or wrong, sending nothing', async () => {
      const requests: { personId: string; body: unknown }[] = [];
      server.use(meHandlers.admin(), listsHandlers.persons(pageOf([buildPerson()])), adminHandlers.grantCredit({ requests }));
      const { user, dialog } = await openGrant();

      await user.click(within(dialog).getByRole('button', { name: 'Grant credit' }));
      expect(within(dialog).getByRole('textbox', { name: /Amount/ })).toHaveAccessibleDescription('Enter an amount');
      expect(within(dialog).getByRole('textbox', { name: /Note/ })).toHaveAccessibleDescription(/note is required/);
      expect(within(dialog).getByLabelText(/Last day/)).toHaveAccessibleDescription(/Choose the last day the credit can be used/);

      await user.type(within(dialog).getByRole('textbox', { name: /Amount/ }), '5');
      await user.type(within(dialog).getByRole('textbox', { name: /Note/ }), 'support');
      setLastDay(dialog, '2020-01-01');
      await user.click(within(dialog).getByRole('button', { name: 'Grant credit' }));
      expect(within(dialog).getByLabelText(/Last day/)).toHaveAccessibleDescription(/The last day must be today \(UTC\) or later/);
      expect(requests).toEqual([]);
    });

    it("shows the api's refusal in a 'Wooops!' toast and keeps the form open", async () => {
      vi.spyOn(logger, 'warn').mockImplementation(() => {});
      server.use(
        meHandlers.admin(),
        listsHandlers.persons(pageOf([buildPerson()])),
        adminHandlers.grantCredit({ answer: () => refusal(400, 'A promotional grant must expire in the future; 2026-01-02T00:00:00.000Z has passed.') }),
      );
      const { user, dialog } = await openGrant();

      await user.type(within(dialog).getByRole('textbox', { name: /Amount/ }), '5');
      await user.type(within(dialog).getByRole('textbox', { name: /Note/ }), 'support');
      setLastDay(dialog, '2099-01-01');
      await user.click(within(dialog).getByRole('button', { name: 'Grant credit' }));

      expect(await screen.findByText('Wooops!')).toBeInTheDocument();
      expect(screen.getByText('A promotional grant must expire in the future; 2026-01-02T00:00:00.000Z has passed.')).toBeInTheDocument();
      expect(screen.getByRole('dialog', { name: 'Grant credit' })).toBeInTheDocument();
    });
  });
});

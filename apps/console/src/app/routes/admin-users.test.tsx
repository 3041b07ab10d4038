import { screen, within } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../lib/logger';
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
    ).toEqual(['ID', 'Email', 'Organisations', 'Created at']);
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
});

import { screen } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildFeedback, buildPerson, listsHandlers, pageOf } from '../../testing/lists-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';

// Loads the lazy route modules once, so no test's first render waits on their transform.
beforeAll(() => Promise.all([import('./app-layout'), import('./admin'), import('./admin-users'), import('./admin-feedback')]), 30_000);

describe('/admin', () => {
  it('has a Users button that opens the users list', async () => {
    server.use(meHandlers.admin(), listsHandlers.persons(pageOf([buildPerson()])));
    const { user, router } = renderRoute('/admin');

    expect(await screen.findByRole('heading', { name: 'Admin' })).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Users' }));

    expect(await screen.findByText('grace@example.com')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/admin/users');
  });

  it('has a Feedback button that opens the feedback list', async () => {
    server.use(meHandlers.admin(), listsHandlers.feedback(pageOf([buildFeedback()])));
    const { user, router } = renderRoute('/admin');

    await user.click(await screen.findByRole('link', { name: 'Feedback' }));

    expect(await screen.findByText('Please add a CSV export.')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/admin/feedback');
  });

  it('tells a person who is not a system admin that the admin area is not theirs', async () => {
    server.use(meHandlers.signedIn({ systemAdmin: false }));
    renderRoute('/admin');

    expect(await screen.findByText('You do not have access to the admin area')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Users' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to dashboard' })).toHaveAttribute('href', '/dashboard');
  });
});

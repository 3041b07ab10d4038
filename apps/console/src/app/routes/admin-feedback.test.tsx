import { screen, within } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../lib/logger';
import { buildFeedback, listsHandlers, pageOf, problem } from '../../testing/lists-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { bodyCellTexts } from '../../testing/table';

// Loads the lazy route modules once, so no test's first render waits on their transform.
beforeAll(() => Promise.all([import('./app-layout'), import('./admin-feedback')]), 30_000);

describe('/admin/feedback', () => {
  it('lists feedback with ID, From Email, Type and Description', async () => {
    server.use(
      meHandlers.admin(),
      listsHandlers.feedback(pageOf([buildFeedback(), buildFeedback({ id: 'f2', type: 'key_deletion', description: 'Rotating keys' })])),
    );
    renderRoute('/admin/feedback');

    const table = await screen.findByRole('table', { name: 'Feedback' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['ID', 'From Email', 'Type', 'Description']);
    expect(bodyCellTexts(table)).toEqual([
      ['5c4d3e2f-1a0b-4c9d-8e7f-6a5b4c3d2e1f', 'grace@example.com', 'Feature request', 'Please add a CSV export.'],
      ['f2', 'grace@example.com', 'Key deletion', 'Rotating keys'],
    ]);
  });

  it('has breadcrumbs Admin › Feedback leading back to the admin home', async () => {
    server.use(meHandlers.admin(), listsHandlers.feedback(pageOf([])));
    renderRoute('/admin/feedback');

    const breadcrumbs = await screen.findByRole('navigation', { name: 'Breadcrumbs' });
    expect(breadcrumbs).toHaveTextContent('Admin›Feedback');
    expect(within(breadcrumbs).getByRole('link', { name: 'Admin' })).toHaveAttribute('href', '/admin');
  });

  it('says "Loading..." and then "No feedback found" for an empty list', async () => {
    server.use(meHandlers.admin(), listsHandlers.feedback(pageOf([])));
    renderRoute('/admin/feedback');

    expect(await screen.findByText('Loading...')).toBeInTheDocument();
    expect(await screen.findByText('No feedback found')).toBeInTheDocument();
  });

  it('explains a 403 instead of showing an empty page', async () => {
    vi.spyOn(logger, 'warn').mockImplementation(() => {});
    server.use(meHandlers.signedIn(), listsHandlers.feedback(problem(403)));
    renderRoute('/admin/feedback');

    expect(await screen.findByText('You do not have access to the admin area')).toBeInTheDocument();
  });

  it('logs a failed load as "Failed to load feedback" without a toast, and offers to try again', async () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {});
    let fail = true;
    server.use(
      meHandlers.admin(),
      listsHandlers.feedback(() => (fail ? problem(500) : pageOf([buildFeedback()]))),
    );
    const { user } = renderRoute('/admin/feedback');

    expect(await screen.findByText('This list could not be loaded.')).toBeInTheDocument();
    expect(warn).toHaveBeenCalledWith('Failed to load feedback', expect.objectContaining({ status: 500 }));
    expect(screen.queryByText('Wooops!')).not.toBeInTheDocument();

    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Please add a CSV export.')).toBeInTheDocument();
  });
});

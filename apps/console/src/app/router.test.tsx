import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { meHandlers } from '../testing/me-handlers';
import { server } from '../testing/msw-server';
import { renderRoute } from '../testing/render';

// Stand-ins for two screens (their owners test them): what is under test here is the table around them.
vi.mock('./routes/dashboard', () => ({ Component: () => <h1>dashboard screen</h1> }));
vi.mock('./routes/chat-completions', () => ({
  Component: () => {
    throw new Error('boom');
  },
}));

describe('the route table', () => {
  it.each(['/', '/no-such-page', '/signup/deeper'])('sends the unknown path %s to /dashboard', async (path) => {
    server.use(meHandlers.signedIn());
    const { router } = renderRoute(path);

    expect(await screen.findByRole('heading', { name: 'dashboard screen' }, { timeout: 3000 })).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it("shows 'Unexpected Application Error!' for an error no screen handled", async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    server.use(meHandlers.signedIn());
    renderRoute('/chat-completions');

    expect(await screen.findByRole('heading', { name: 'Unexpected Application Error!' }, { timeout: 3000 })).toBeInTheDocument();
    expect(screen.getByText('boom')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();
    // React reports the error it caught; the page is what the user sees instead of a blank screen.
    expect(consoleError).toHaveBeenCalled();
  });
});

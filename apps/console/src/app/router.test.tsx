import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { RouteError } from '../components/route-error';
import { renderRoute, renderRoutes } from '../testing/render';

describe('the route table', () => {
  it.each(['/', '/no-such-page', '/signup/deeper'])('sends the unknown path %s to /dashboard', async (path) => {
    const { router } = renderRoute(path);

    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(await screen.findByRole('heading', { name: 'dashboard' })).toBeInTheDocument();
  });

  it("shows 'Unexpected Application Error!' for an error no route handled", async () => {
    renderRoutes([
      {
        path: '/',
        errorElement: <RouteError />,
        loader: () => {
          throw new Error('boom');
        },
        HydrateFallback: () => null,
        element: null,
      },
    ], '/');

    expect(await screen.findByRole('heading', { name: 'Unexpected Application Error!' })).toBeInTheDocument();
    expect(screen.getByText('boom')).toBeInTheDocument();
  });
});

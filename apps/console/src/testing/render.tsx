import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { AppProvider } from '../app/provider';
import { routes } from '../app/router';
import { createQueryClient } from '../lib/query-client';

/**
 * Renders a route table at `path` inside the app's providers in test mode, with the app's own
 * QueryClient (failures toast as in production) minus retries.
 */
export function renderRoutes(routeTable: RouteObject[], path: string) {
  const queryClient = createQueryClient({ queries: { retry: false }, mutations: { retry: false } });
  const router = createMemoryRouter(routeTable, { initialEntries: [path] });
  const user = userEvent.setup();
  const view = render(
    <AppProvider queryClient={queryClient} env="test">
      <RouterProvider router={router} />
    </AppProvider>,
  );
  return { ...view, user, router, queryClient };
}

/** Renders the real route table at `path`. */
export function renderRoute(path: string) {
  return renderRoutes(routes, path);
}

/** Renders one component inside the app's providers and a router, for component-level tests. */
export function renderComponent(ui: ReactNode) {
  return renderRoutes([{ path: '*', element: ui }], '/');
}

import { redirect, type RouteObject } from 'react-router';
import { RouteError } from '../components/route-error';
import { paths } from '../config/paths';

/** The route table; every screen is its own lazily loaded chunk. */
export const routes: RouteObject[] = [
  {
    errorElement: <RouteError />,
    // Rendered while the first screen's chunk loads; the page stays blank for that instant.
    HydrateFallback: () => null,
    children: [
      {
        path: paths.login.path,
        lazy: async () => {
          const { LoginRoute } = await import('./routes/login');
          return { Component: LoginRoute };
        },
      },
      // Spec §2 sends unknown paths to the dashboard; until the authenticated screens exist, to login.
      { path: '*', loader: () => redirect(paths.login.getHref()), element: null },
    ],
  },
];

import { redirect, type RouteObject } from 'react-router';
import { RouteError } from '../components/route-error';
import { paths } from '../config/paths';

// The route table. Every screen is its own lazily loaded module exporting `Component` (and, where
// it guards or loads, `loader`), so /login never downloads the signed-in screens.

/**
 * A screen other than /login: its module comes with Mantine's whole stylesheet, which /login's
 * first paint goes without (main.tsx). The import resolves once the sheet is applied.
 */
const withAllStyles =
  <T,>(load: () => Promise<T>) =>
  async (): Promise<T> =>
    (await Promise.all([load(), import('@mantine/core/styles.layer.css')]))[0];

export const routes: RouteObject[] = [
  {
    errorElement: <RouteError />,
    // Rendered while the first screen's chunk loads; the page stays blank for that instant.
    HydrateFallback: () => null,
    children: [
      {
        // Public screens: a visitor already signed in goes to the dashboard (or verify-email).
        lazy: () => import('./routes/public-layout'),
        children: [
          { path: paths.login.path, lazy: () => import('./routes/login') },
          { path: paths.signup.path, lazy: withAllStyles(() => import('./routes/signup')) },
          { path: paths.recover.path, lazy: withAllStyles(() => import('./routes/recover')) },
        ],
      },
      { path: paths.recoverPassword.path, lazy: withAllStyles(() => import('./routes/recover-password')) },
      { path: paths.termsOfService.path, lazy: withAllStyles(() => import('./routes/terms-of-service')) },
      { path: paths.verifyEmail.path, lazy: withAllStyles(() => import('./routes/verify-email')) },
      // Its own guard: a visitor without a session keeps the invitation while signing up or in.
      { path: paths.invitation.path, lazy: withAllStyles(() => import('./routes/invitation')) },
      {
        // Signed-in screens: /bff/me first, then the shell around the screen.
        lazy: withAllStyles(() => import('./routes/app-layout')),
        children: [
          { path: paths.dashboard.path, lazy: withAllStyles(() => import('./routes/dashboard')) },
          { path: paths.chatCompletions.path, lazy: withAllStyles(() => import('./routes/chat-completions')) },
          { path: paths.addCredits.path, lazy: withAllStyles(() => import('./routes/add-credits')) },
          { path: paths.autoTopUpCard.path, lazy: withAllStyles(() => import('./routes/auto-top-up-card')) },
          { path: paths.creditHistory.path, lazy: withAllStyles(() => import('./routes/credit-history')) },
          { path: paths.members.path, lazy: withAllStyles(() => import('./routes/members')) },
          { path: paths.auditLog.path, lazy: withAllStyles(() => import('./routes/audit-log')) },
          { path: paths.models.path, lazy: withAllStyles(() => import('./routes/models')) },
          { path: paths.webhooks.path, lazy: withAllStyles(() => import('./routes/webhooks')) },
          { path: paths.admin.path, lazy: withAllStyles(() => import('./routes/admin')) },
          { path: paths.adminUsers.path, lazy: withAllStyles(() => import('./routes/admin-users')) },
          { path: paths.adminFeedback.path, lazy: withAllStyles(() => import('./routes/admin-feedback')) },
        ],
      },
      // Spec §2: any unknown path goes to the dashboard.
      { path: '*', loader: () => redirect(paths.dashboard.getHref()), element: null },
    ],
  },
];

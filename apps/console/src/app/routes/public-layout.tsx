import { Outlet, redirect } from 'react-router';
import { paths } from '../../config/paths';
import { type SessionState, sessionState } from '../../lib/identity-client';

/**
 * The guard of /login, /signup and /recover (spec §2): a visitor already signed in goes to the
 * dashboard, or to verify-email while the address is unverified.
 */
export async function loader() {
  let state: SessionState;
  try {
    state = await sessionState();
  } catch {
    // identity could not say (already logged by the client): show the screen, so logging in
    // stays possible rather than the visitor being stuck on an error page.
    return null;
  }
  if (state === 'logged-in') return redirect(paths.dashboard.getHref());
  if (state === 'email-not-verified') return redirect(paths.verifyEmail.getHref());
  return null;
}

export function Component() {
  return <Outlet />;
}

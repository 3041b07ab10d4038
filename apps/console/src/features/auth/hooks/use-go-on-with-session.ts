import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { paths } from '../../../config/paths';
import { type SessionStatus, sessionStatus } from '../../../lib/identity-client';
import { goToSecondFactor } from '../../../lib/second-factor';

/**
 * Where a visitor who already has a session goes from the public screens (spec §2): the
 * dashboard, verify-email while the address is unverified, or identity's second-factor step (then
 * the dashboard) when one is due. Signed out, the visitor stays.
 */
export function useGoOnWithSession(): (status: SessionStatus) => void {
  const navigate = useNavigate();
  return useCallback(
    (status: SessionStatus) => {
      if (status.state === 'logged-in') void navigate(paths.dashboard.getHref(), { replace: true });
      else if (status.state === 'email-not-verified') void navigate(paths.verifyEmail.getHref(), { replace: true });
      else if (status.state === 'second-factor-required') goToSecondFactor(status.redirectTo, paths.dashboard.getHref());
    },
    [navigate],
  );
}

/**
 * For a screen whose flow identity refused because the browser is signed in (SessionAlreadyAvailable):
 * asks whoami, then goes on as above. Should identity not answer, the screen stays.
 */
export function useContinueWithSession(): () => void {
  const goOnWithSession = useGoOnWithSession();
  return useCallback(() => void sessionStatus().then(goOnWithSession, () => {}), [goOnWithSession]);
}

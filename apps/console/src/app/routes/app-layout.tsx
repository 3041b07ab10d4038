import type { Me } from '@meterway/contracts';
import { useDisclosure } from '@mantine/hooks';
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { ConsoleShell } from '../../components/app-shell/console-shell';
import { ShellLoader } from '../../components/app-shell/shell-loader';
import { paths } from '../../config/paths';
import { TestModeBanner } from '../../features/credits/components/test-mode-banner';
import { SendFeedbackModal } from '../../features/feedback/components/send-feedback-modal';
import { LeaveOrganizationModal } from '../../features/organizations/components/leave-organization-modal';
import { NewOrganizationModal } from '../../features/organizations/components/new-organization-modal';
import { useSwitchToOrganization } from '../../features/organizations/hooks/use-switch-to-organization';
import { ApiError, isEmailNotVerified } from '../../lib/api-client';
import { useMe } from '../../lib/me';
import { pendingInvitation } from '../../lib/pending-invitation';
import { goToSecondFactor, secondFactorRedirect } from '../../lib/second-factor';

/** /bff/me's 403 passing on identity's session_aal2_required: where the second factor is given. */
const secondFactorOf = (error: unknown): string | undefined =>
  error instanceof ApiError && error.status === 403 ? secondFactorRedirect(error.body) : undefined;

/** Leaves for identity's second-factor step, to come back to the screen the visitor asked for. */
function SecondFactorStep({ redirectTo }: { redirectTo: string }) {
  const { pathname, search, hash } = useLocation();
  useEffect(() => goToSecondFactor(redirectTo, `${pathname}${search}${hash}`), [redirectTo, pathname, search, hash]);
  return <ShellLoader />;
}

// The signed-in screens (spec §2, §6, §8): the current user first. No user (any failure of
// /bff/me) or no organisation goes to login; 401 EmailNotVerified goes to verify-email; a second
// factor still due (identity's 403 session_aal2_required, passed on) goes to identity to give it.
// An invitation opened before signing in (issue #21) is taken up by the first signed-in screen:
// login, verify-email and the second factor all end here, so each of them leads back to it.
export function Component() {
  const me = useMe();

  if (me.isPending) return <ShellLoader />;
  if (me.isError) {
    const secondFactor = secondFactorOf(me.error);
    if (secondFactor) return <SecondFactorStep redirectTo={secondFactor} />;
    const email = isEmailNotVerified(me.error);
    return email ? <Navigate to={paths.verifyEmail.getHref()} state={{ email }} replace /> : <Navigate to={paths.login.getHref()} replace />;
  }
  if (!me.data.organizationId) return <Navigate to={paths.login.getHref()} replace />;
  const invitation = pendingInvitation();
  if (invitation) return <Navigate to={paths.invitation.getHref(invitation)} replace />;
  return <SignedInShell me={me.data} />;
}

// Its own component, so the hooks of the menu's actions are not in the redirects above: with them
// there, the layout's <Navigate> to verify-email ran again and again (React's maximum update depth,
// seen in the console-shell e2e).
function SignedInShell({ me }: { me: Me }) {
  const [feedbackOpened, feedback] = useDisclosure(false);
  const [newOrganizationOpened, newOrganization] = useDisclosure(false);
  const [leaveOpened, leave] = useDisclosure(false);
  const switchOrganization = useSwitchToOrganization();

  const menuActions = {
    sendFeedback: feedback.open,
    switchOrganization,
    newOrganization: newOrganization.open,
    leaveOrganization: leave.open,
  };
  return (
    <ConsoleShell user={me} menuActions={menuActions}>
      <TestModeBanner />
      <Outlet />
      <SendFeedbackModal opened={feedbackOpened} onClose={feedback.close} />
      <NewOrganizationModal opened={newOrganizationOpened} onClose={newOrganization.close} />
      <LeaveOrganizationModal opened={leaveOpened} onClose={leave.close} organization={me} />
    </ConsoleShell>
  );
}

import { useDisclosure } from '@mantine/hooks';
import { Navigate, Outlet } from 'react-router';
import { ConsoleShell } from '../../components/app-shell/console-shell';
import { ShellLoader } from '../../components/app-shell/shell-loader';
import { paths } from '../../config/paths';
import { SendFeedbackModal } from '../../features/feedback/components/send-feedback-modal';
import { isEmailNotVerified } from '../../lib/api-client';
import { useMe } from '../../lib/me';

// The signed-in screens (spec §2, §6, §8): the current user first. No user (any failure of
// /bff/me) or no organisation goes to login; 401 EmailNotVerified goes to verify-email.
export function Component() {
  const me = useMe();
  const [feedbackOpened, feedback] = useDisclosure(false);

  if (me.isPending) return <ShellLoader />;
  if (me.isError) {
    const email = isEmailNotVerified(me.error);
    return email ? (
      <Navigate to={paths.verifyEmail.getHref()} state={{ email }} replace />
    ) : (
      <Navigate to={paths.login.getHref()} replace />
    );
  }
  if (!me.data.organizationId) return <Navigate to={paths.login.getHref()} replace />;

  return (
    <ConsoleShell user={me.data} onSendFeedback={feedback.open}>
      <Outlet />
      <SendFeedbackModal opened={feedbackOpened} onClose={feedback.close} />
    </ConsoleShell>
  );
}

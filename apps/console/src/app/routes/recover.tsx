import { Alert, Stack } from '@mantine/core';
import { AuthCard } from '@meterway/ui-kit';
import { useNavigate } from 'react-router';
import { paths } from '../../config/paths';
import { useRecoverByLink } from '../../features/auth/api/recover-by-link';
import { useSendRecoveryCode } from '../../features/auth/api/send-recovery-code';
import type { SessionAlreadyAvailable } from '../../features/auth/api/unless-signed-in';
import { AuthSwitchLink } from '../../features/auth/components/auth-switch-link';
import { FailureAlert } from '../../features/auth/components/failure-alert';
import { RecoverForm } from '../../features/auth/components/recover-form';
import { useContinueWithSession } from '../../features/auth/hooks/use-go-on-with-session';
import { recoveryTexts } from '../../features/auth/texts';
import type { RecoveryResult } from '../../lib/identity-client';

const failureOf = (result: RecoveryResult | SessionAlreadyAvailable | undefined) =>
  result?.type === 'Failure' ? result.messages : result?.type === 'UserNotFound' ? [] : undefined;

export function Component() {
  const navigate = useNavigate();
  const link = useRecoverByLink();
  const code = useSendRecoveryCode();
  const continueWithSession = useContinueWithSession();
  // Starting one action resets the other, so at most one outcome is shown.
  const failure = failureOf(link.data ?? code.data);

  return (
    <AuthCard title="Recover your account" description="Enter the e-mail address of your account and we will help you back in.">
      <title>Recover your account · Meterway</title>
      <Stack gap="md">
        {failure && <FailureAlert title={recoveryTexts.failure} messages={failure} />}
        {link.data?.type === 'Success' && (
          // No title: Mantine's teal title colour on the teal background is below WCAG AA contrast.
          <Alert color="teal" variant="light">
            {recoveryTexts.linkSent}
          </Alert>
        )}
        <RecoverForm
          sendingLink={link.isPending}
          sendingCode={code.isPending}
          onSendLink={({ email }) => {
            code.reset();
            link.mutate(email, {
              // Signed in meanwhile (another tab, a second factor left half-way): go on with that session.
              onSuccess: (result) => {
                if (result.type === 'SessionAlreadyAvailable') continueWithSession();
              },
            });
          }}
          onSendCode={({ email }) => {
            link.reset();
            code.mutate(email, {
              onSuccess: (result) => {
                if (result.type === 'Success') void navigate(paths.recoverPassword.getHref(result.flowId));
                else if (result.type === 'SessionAlreadyAvailable') continueWithSession();
              },
            });
          }}
        />
        <AuthSwitchLink prompt="Remembered it?" to={paths.login.getHref()}>
          Back to login
        </AuthSwitchLink>
      </Stack>
    </AuthCard>
  );
}

import { Button, Stack, Text } from '@mantine/core';
import { AuthCard } from '@meterway/ui-kit';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { paths } from '../../config/paths';
import { useRecoverByCode } from '../../features/auth/api/recover-by-code';
import { useRecoveryFlow } from '../../features/auth/api/get-recovery-flow';
import { AuthSwitchLink } from '../../features/auth/components/auth-switch-link';
import { CodeForm } from '../../features/auth/components/code-form';
import { FailureAlert } from '../../features/auth/components/failure-alert';
import { browserLocation } from '../../lib/browser-location';
import { recoveryTexts } from '../../features/auth/texts';
import { flowMessages, type RecoveryResult } from '../../lib/identity-client';

const failureOf = (result: RecoveryResult | undefined) => (result?.type === 'Failure' ? result.messages : result?.type === 'UserNotFound' ? [] : undefined);

function StartAgain({ children }: { children: string }) {
  return (
    <Stack gap="md">
      <Text size="sm">{children}</Text>
      <Button component={Link} to={paths.recover.getHref()} fullWidth>
        Request a new recovery e-mail
      </Button>
    </Stack>
  );
}

function RecoveryCodeStep({ flowId }: { flowId: string }) {
  const navigate = useNavigate();
  const flow = useRecoveryFlow(flowId);
  const { mutate, data, isPending } = useRecoverByCode();

  if (flow.isPending) return <Text size="sm">Loading...</Text>;
  // Not waiting for a code: identity sent the browser here with a fresh flow because the e-mailed
  // link had expired or was already used; the flow's messages say which.
  if (flow.data && flow.data.state !== 'sent_email') {
    const errors = flowMessages(flow.data, 'error');
    return (
      <Stack gap="md">
        {errors.length > 0 && <FailureAlert title={recoveryTexts.failure} messages={errors} />}
        <StartAgain>Recovery e-mails work once and for a limited time. Request a new one to continue.</StartAgain>
      </Stack>
    );
  }

  const failure = failureOf(data);
  return (
    <Stack gap="md">
      <Text size="sm">Enter the 6-character code we e-mailed you. Next, you will choose a new password.</Text>
      <CodeForm
        label="Recovery code"
        submitLabel="Recover account"
        loading={isPending}
        alert={failure && <FailureAlert title={recoveryTexts.failure} messages={failure} />}
        onSubmit={({ code }) =>
          mutate(
            { flowId, code },
            {
              onSuccess: (result) => {
                if (result.type !== 'Success') return;
                // Identity's settings page, where the signed-in visitor chooses the new password.
                if (result.redirectTo) browserLocation.assign(result.redirectTo);
                else void navigate(paths.dashboard.getHref());
              },
            },
          )
        }
      />
      <AuthSwitchLink prompt="No code?" to={paths.recover.getHref()}>
        Send a new one
      </AuthSwitchLink>
    </Stack>
  );
}

export function Component() {
  const [searchParams] = useSearchParams();
  // Our /recover sends ?flowId=; identity appends ?flow= when it sends the browser here.
  const flowId = searchParams.get('flowId') || searchParams.get('flow');

  return (
    <AuthCard title="Recover your account">
      <title>Recover your account · Meterway</title>
      <Stack gap="md">
        {flowId ? (
          <RecoveryCodeStep key={flowId} flowId={flowId} />
        ) : (
          <StartAgain>There is no account recovery in progress. Start one by requesting a recovery e-mail.</StartAgain>
        )}
        <AuthSwitchLink to={paths.login.getHref()}>Back to login</AuthSwitchLink>
      </Stack>
    </AuthCard>
  );
}

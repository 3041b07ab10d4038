import { Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { AuthCard } from '@meterway/ui-kit';
import { useQueryClient } from '@tanstack/react-query';
import { type LoaderFunctionArgs, redirect, useLoaderData, useNavigate, useSearchParams } from 'react-router';
import { paths } from '../../config/paths';
import { useLogout } from '../../features/auth/api/logout';
import { useSendVerificationCode } from '../../features/auth/api/send-verification-code';
import { useVerifyEmail } from '../../features/auth/api/verify-email';
import { CodeForm } from '../../features/auth/components/code-form';
import { FailureAlert } from '../../features/auth/components/failure-alert';
import { verificationTexts } from '../../features/auth/texts';
import { type SessionStatus, sessionStatus } from '../../lib/identity-client';
import { notifySuccess } from '../../lib/notify';
import { goToSecondFactor } from '../../lib/second-factor';

/** Spec §2: only for a signed-in visitor whose address is not verified yet (a due second factor comes first). */
export async function loader({ request }: LoaderFunctionArgs) {
  // Without an answer from identity there is no address to verify; login says what is wrong.
  const status = await sessionStatus().catch((): SessionStatus => ({ state: 'logged-out' }));
  if (status.state === 'logged-out') return redirect(paths.login.getHref());
  if (status.state === 'logged-in') return redirect(paths.dashboard.getHref());
  if (status.state === 'second-factor-required') {
    const { pathname, search } = new URL(request.url);
    goToSecondFactor(status.redirectTo, `${pathname}${search}`);
    return { email: '' };
  }
  const traits = status.session.identity?.traits as { email?: unknown } | undefined;
  return { email: typeof traits?.email === 'string' ? traits.email : '' };
}

function LogOutLink() {
  const navigate = useNavigate();
  const { mutate, isPending } = useLogout();
  return (
    <Anchor
      component="button"
      type="button"
      size="sm"
      disabled={isPending}
      onClick={() => mutate(undefined, { onSuccess: () => void navigate(paths.login.getHref()) })}
    >
      Log out
    </Anchor>
  );
}

export function Component() {
  const { email } = useLoaderData<typeof loader>();
  const [searchParams] = useSearchParams();
  // Our screens send ?flowId=; identity appends ?flow= when it sends the browser here.
  const flowId = searchParams.get('flowId') || searchParams.get('flow');
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const sendCode = useSendVerificationCode();
  const verify = useVerifyEmail();

  const send = (onSent?: () => void) =>
    sendCode.mutate(email, {
      onSuccess: ({ flowId: next }) => {
        verify.reset();
        void navigate(paths.verifyEmail.getHref(next), { replace: true });
        onSent?.();
      },
    });

  const submit = (code: string) =>
    verify.mutate(
      { flowId: flowId ?? '', code },
      {
        onSuccess: (result) => {
          if (result.type !== 'Success') return;
          notifySuccess(verificationTexts.verified);
          // What was cached was read while unverified; the dashboard reads /bff/me afresh.
          queryClient.removeQueries();
          void navigate(paths.dashboard.getHref());
        },
      },
    );

  return (
    <AuthCard title="Verify your email">
      <title>Verify your email · Meterway</title>
      {flowId ? (
        <Stack gap="md">
          <Text size="sm">We e-mailed a 6-character code to {email}. Enter it below to verify your address.</Text>
          <CodeForm
            key={flowId}
            label="Verification code"
            submitLabel="Verify"
            loading={verify.isPending}
            alert={verify.data?.type === 'Failure' && <FailureAlert messages={verify.data.messages} />}
            onSubmit={({ code }) => submit(code)}
          />
          <Text size="sm" c="dimmed">
            Can&apos;t find the e-mail? It may take a minute to arrive; check your spam folder too.
          </Text>
          <Group justify="space-between">
            <Anchor
              component="button"
              type="button"
              size="sm"
              disabled={sendCode.isPending}
              onClick={() => send(() => notifySuccess(`We sent a new code to ${email}.`))}
            >
              Resend email
            </Anchor>
            <LogOutLink />
          </Group>
        </Stack>
      ) : (
        <Stack gap="md">
          <Text size="sm">Your e-mail address is not verified yet. A new code will be sent to {email}.</Text>
          <Button fullWidth loading={sendCode.isPending} onClick={() => send()}>
            Send code
          </Button>
          <Group justify="center">
            <LogOutLink />
          </Group>
        </Stack>
      )}
    </AuthCard>
  );
}

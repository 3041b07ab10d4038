import { Button, Stack, Text } from '@mantine/core';
import { AuthCard } from '@meterway/ui-kit';
import { type LoaderFunctionArgs, Link, redirect, useLoaderData } from 'react-router';
import { paths } from '../../config/paths';
import { InvitationAcceptance } from '../../features/members/components/invitation-acceptance';
import { type SessionStatus, sessionStatus } from '../../lib/identity-client';
import { savePendingInvitation } from '../../lib/pending-invitation';
import { goToSecondFactor } from '../../lib/second-factor';

/**
 * The link of an invitation mail (issue #21). Signed in and verified, the person accepts at once.
 * Anyone else has the token kept in this tab (lib/pending-invitation) while they sign up or log
 * in, verify their address or give a second factor; the first signed-in screen then sends them
 * back here (app-layout).
 */
export async function loader({ params, request }: LoaderFunctionArgs) {
  const token = params.token ?? '';
  savePendingInvitation(token);
  // Without an answer from identity the visitor is treated as signed out: signing in says what is wrong.
  const status = await sessionStatus().catch((): SessionStatus => ({ state: 'logged-out' }));
  if (status.state === 'email-not-verified') return redirect(paths.verifyEmail.getHref());
  if (status.state === 'second-factor-required') {
    const { pathname, search } = new URL(request.url);
    goToSecondFactor(status.redirectTo, `${pathname}${search}`);
  }
  return { token, signedIn: status.state === 'logged-in' };
}

export function Component() {
  const { token, signedIn } = useLoaderData<typeof loader>();
  return (
    <AuthCard title="Join an organisation on Meterway">
      <title>Invitation · Meterway</title>
      {signedIn ? (
        <InvitationAcceptance token={token} />
      ) : (
        <Stack gap="md">
          <Text size="sm">
            You have been invited to an organisation. Sign up, or log in, with the address the invitation was sent to: once you are in, you join it.
          </Text>
          <Button component={Link} to={paths.signup.getHref()} fullWidth>
            Sign up
          </Button>
          <Button component={Link} to={paths.login.getHref()} variant="default" fullWidth>
            Log in
          </Button>
        </Stack>
      )}
    </AuthCard>
  );
}

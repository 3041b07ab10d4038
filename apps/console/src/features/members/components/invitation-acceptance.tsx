import { Alert, Anchor, Center, Loader, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useNavigate } from 'react-router';
import { paths } from '../../../config/paths';
import { refusalDetail } from '../../../lib/api-client';
import { errorMessage, notifySuccess } from '../../../lib/notify';
import { clearPendingInvitation } from '../../../lib/pending-invitation';
import { showOrganizationInTab } from '../../../lib/tab-organization';
import { useAcceptInvitation } from '../api/accept-invitation';

/**
 * Accepts the invitation of `token` for the signed-in person (issue #21), once: they join its
 * organisation, which becomes their current one, and land on its dashboard. A refusal (another
 * address, expired, revoked) is said here, in the api's words, with the way to the dashboard.
 */
export function InvitationAcceptance({ token }: { token: string }) {
  const accept = useAcceptInvitation();
  const { mutate } = accept;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // Once per visit: React's development double mount must not spend the token twice.
  const sent = useRef(false);

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    mutate(token, {
      onSuccess: ({ organizationId, organizationName }) => {
        notifySuccess(`You joined ${organizationName}`);
        // This tab shows the organisation joined; others keep theirs.
        showOrganizationInTab(organizationId);
        void navigate(paths.dashboard.getHref(), { replace: true });
        // Every cached answer was for the organisation the person was in before.
        void queryClient.resetQueries();
      },
      // Taken up or refused, the token has had its turn: the next signed-in screen does not come back here.
      onSettled: clearPendingInvitation,
    });
  }, [mutate, token, navigate, queryClient]);

  if (accept.isError) {
    return (
      <Stack gap="md">
        <Alert color="red" variant="light" title="This invitation cannot be accepted">
          {refusalDetail(accept.error) ?? errorMessage(accept.error)}
        </Alert>
        <Anchor component={Link} to={paths.dashboard.getHref()} size="sm">
          Go to the dashboard
        </Anchor>
      </Stack>
    );
  }
  return (
    <Center py="md">
      <Stack align="center" gap="sm" role="status">
        <Loader type="dots" />
        <Text size="sm">Joining the organisation…</Text>
      </Stack>
    </Center>
  );
}

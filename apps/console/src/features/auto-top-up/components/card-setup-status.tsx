import { Alert, Button, Group, Loader, Stack, Text } from '@mantine/core';
import type { Me } from '@meterway/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { paths } from '../../../config/paths';
import { useMe } from '../../../lib/me';
import { notifySuccess } from '../../../lib/notify';
import { autoTopUpQueryKey } from '../api/get-auto-top-up';
import { SaveCardButton } from './save-card-button';

type SetupStatus = Me['organizationCheckoutSessions'][number]['status'];

export const cardSetupMessages: Record<Exclude<SetupStatus, 'SUCCEEDED'>, string> = {
  IN_PROGRESS: 'Saving your card... Please wait while we check it.',
  FAILED: 'Your card could not be saved. Please try again.',
  EXPIRED: 'Saving the card expired. Please try again.',
};

export const cardSavedMessage = 'Your card was saved for auto top-up';

/** Like a payment's status (spec §4), the current user is read every second until the session has an outcome. */
export const cardSetupPollMs = 1000;

/**
 * Where the card form returns: waits for the setup session's outcome in /bff/me, then goes back to
 * the dashboard, whose auto top-up card reads the saved card afresh.
 */
export function CardSetupStatus({ checkoutSessionId }: { checkoutSessionId: string }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [settled, setSettled] = useState(false);
  // 0 turns TanStack's interval off.
  const me = useMe({ refetchInterval: settled ? 0 : cardSetupPollMs });
  // Until the provider's outcome is recorded, the session is still in progress.
  const status: SetupStatus = me.data?.organizationCheckoutSessions.find((session) => session.checkoutSessionId === checkoutSessionId)?.status ?? 'IN_PROGRESS';

  if (status !== 'IN_PROGRESS' && !settled) setSettled(true);

  useEffect(() => {
    if (status !== 'SUCCEEDED') return;
    void queryClient.invalidateQueries({ queryKey: autoTopUpQueryKey }).then(() => {
      notifySuccess(cardSavedMessage);
      void navigate(paths.dashboard.getHref(), { replace: true });
    });
  }, [status, queryClient, navigate]);

  const final = status === 'FAILED' || status === 'EXPIRED';
  return (
    <Stack gap="lg">
      <Alert color={final ? 'red' : 'blue'} variant="light" role="status" icon={final ? undefined : <Loader size="sm" />}>
        <Text>{status === 'SUCCEEDED' ? `${cardSavedMessage}.` : cardSetupMessages[status]}</Text>
      </Alert>
      <Group>
        {final && <SaveCardButton />}
        <Button component={Link} to={paths.dashboard.getHref()} variant={final ? 'default' : 'filled'}>
          Back to dashboard
        </Button>
      </Group>
    </Stack>
  );
}

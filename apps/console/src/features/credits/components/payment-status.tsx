import { Alert, Button, Group, Loader, Stack, Text } from '@mantine/core';
import type { Me } from '@meterway/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { paths } from '../../../config/paths';
import { formatMoney, formatOwed } from '../../../lib/format';
import { meQueryKey, useMe } from '../../../lib/me';
import { useCheckoutOutcome } from '../api/get-checkout-outcome';

type CheckoutStatus = Me['organizationCheckoutSessions'][number]['status'];

/** Spec §8, word for word. */
export const paymentStatusMessages: Record<CheckoutStatus, string> = {
  IN_PROGRESS: 'Payment in progress... Please wait while we process your payment.',
  FAILED: 'Payment failed! Please try again.',
  EXPIRED: 'Payment expired! Please try again.',
  SUCCEEDED: 'Payment successful! Your credit was successfully refilled.',
};

/** Spec §4 and §9: the current user is re-read every second until the payment has an outcome. */
export const paymentStatusPollMs = 1000;

/**
 * A session the current user does not list after this long is likely not theirs (a mistyped or
 * shared link); the screen still waits for it, but says it may never come.
 */
export const paymentNotFoundAfterMs = 60_000;

export const paymentNotFoundMessage = 'We could not find this payment. If you paid, your credit appears on the dashboard once the payment is confirmed.';

const colors: Record<CheckoutStatus, string> = { IN_PROGRESS: 'blue', FAILED: 'red', EXPIRED: 'orange', SUCCEEDED: 'teal' };

export function PaymentStatus({ checkoutSessionId }: { checkoutSessionId: string }) {
  const queryClient = useQueryClient();
  const [settled, setSettled] = useState(false);
  // 0 turns TanStack's interval off.
  const me = useMe({ refetchInterval: settled ? 0 : paymentStatusPollMs });
  const session = me.data?.organizationCheckoutSessions.find((candidate) => candidate.checkoutSessionId === checkoutSessionId);
  // Until the webhook has recorded the session, it is still in progress (spec §4).
  const status: CheckoutStatus = session?.status ?? 'IN_PROGRESS';
  const final = status !== 'IN_PROGRESS';
  if (final && !settled) setSettled(true);
  const listed = session !== undefined;
  const [waitedLong, setWaitedLong] = useState(false);

  useEffect(() => {
    if (listed) return;
    const timer = setTimeout(() => setWaitedLong(true), paymentNotFoundAfterMs);
    return () => clearTimeout(timer);
  }, [listed]);

  useEffect(() => {
    // The answer that carried the outcome carried the new balance too; marking it stale makes the
    // dashboard read it again rather than trust a copy from before the payment.
    if (final) void queryClient.invalidateQueries({ queryKey: meQueryKey, refetchType: 'none' });
  }, [final, queryClient]);

  return (
    <Stack gap="lg">
      <Alert color={colors[status]} variant="light" role="status" icon={final ? undefined : <Loader size="sm" />}>
        <Text>{paymentStatusMessages[status]}</Text>
        {status === 'SUCCEEDED' && <DebtPaid checkoutSessionId={checkoutSessionId} />}
        {!listed && waitedLong && (
          <Text mt="xs" size="sm">
            {paymentNotFoundMessage}
          </Text>
        )}
      </Alert>
      <Group>
        <Button component={Link} to={paths.dashboard.getHref()}>
          Back to dashboard
        </Button>
      </Group>
    </Stack>
  );
}

/** Issue #52: when part of the credit paid what the organisation owed, the status says how much, and what reached the balance. */
function DebtPaid({ checkoutSessionId }: { checkoutSessionId: string }) {
  const { data } = useCheckoutOutcome(checkoutSessionId);
  if (!data || data.owedPaidAmount <= 0) return null;
  const added = Math.max(data.creditAmount - data.owedPaidAmount, 0);
  return (
    <Text mt="xs" size="sm">
      {added > 0
        ? `${formatOwed(data.owedPaidAmount)} of it paid what your organisation owed; ${formatMoney(added)} was added to your balance.`
        : `All of it paid what your organisation owed (${formatOwed(data.owedPaidAmount)}); nothing was added to your balance.`}
    </Text>
  );
}

import { Alert, Button, Card, Group, Stack, Text } from '@mantine/core';
import { can } from '@meterway/contracts';
import { Link } from 'react-router';
import { paths } from '../../../config/paths';
import { formatMoney, formatOwed } from '../../../lib/format';
import { useMe } from '../../../lib/me';
import { InvoicesButton } from './invoices-button';

/**
 * The remaining credit (spec §2), with Credit history, Invoices and Add credits for the roles that manage credit
 * (issue #21: every role sees the balance); when a refund or dispute left the
 * organisation owing, what it owes and that its keys stay stopped until a top-up pays it.
 */
export function CreditBalanceCard() {
  const { data: me } = useMe();
  return (
    <Card withBorder padding="lg">
      {me && me.owedAmount > 0 ? (
        <Alert color="red" variant="light" mb="md" role="status" title={`Your organisation owes ${formatOwed(me.owedAmount)}`}>
          A refund or dispute took back credit that had already been spent. Your publishable keys are refused until this is paid: the next credits you add pay
          it first.
        </Alert>
      ) : null}
      <Group justify="space-between" align="flex-end">
        <Stack gap={4}>
          <Text size="sm" c="gray.7">
            Credit balance
          </Text>
          <Text fz={32} fw={700} lh={1.1}>
            {me ? formatMoney(me.remainingSpendAmount) : 'Loading...'}
          </Text>
        </Stack>
        {me && can(me.role, 'manageCredit') && (
          <Group gap="sm">
            <Button component={Link} to={paths.creditHistory.getHref()} variant="default">
              Credit history
            </Button>
            <InvoicesButton />
            <Button component={Link} to={paths.addCredits.getHref()}>
              Add credits
            </Button>
          </Group>
        )}
      </Group>
    </Card>
  );
}

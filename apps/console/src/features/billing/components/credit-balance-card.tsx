import { Alert, Button, Card, Group, Stack, Text } from '@mantine/core';
import { can, type Me } from '@meterway/contracts';
import { Link } from 'react-router';
import { paths } from '../../../config/paths';
import { formatExactMoney, formatMoney, formatOwed, formatSpend } from '../../../lib/format';
import { useMe } from '../../../lib/me';
import { formatGrantLastDay } from '../grant-expiry';
import { InvoicesButton } from './invoices-button';

/**
 * The remaining credit (spec §2), with Credit history, Invoices and Add credits for the roles that manage credit
 * (issue #21: every role sees the balance); when a refund or dispute left the
 * organisation owing, what it owes and that its keys stay stopped until a top-up pays it. With
 * promotional credit (issue #22), the paid and promotional parts and when the next grant expires.
 */
export function CreditBalanceCard() {
  const { data: me } = useMe();
  return (
    <Card withBorder padding="lg">
      {me && me.owedAmount > 0 ? (
        <Alert color="red" variant="light" mb="md" role="status" title={`Your organisation owes ${formatOwed(me.owedAmount)}`}>
          A refund or dispute took back credit that had already been spent, or calls cost more than the credit left. Gateway calls, with publishable and secret
          keys alike, are refused until this is paid: the next credits you add pay it first.
        </Alert>
      ) : null}
      <Group justify="space-between" align="flex-end">
        <Stack gap={4}>
          <Text size="sm" c="gray.7">
            Credit balance
          </Text>
          <Text fz={32} fw={700} lh={1.1} title={me ? formatExactMoney(me.remainingSpendAmount) : undefined}>
            {me ? formatSpend(me.remainingSpendAmount) : 'Loading...'}
          </Text>
          {me && me.promotionalCreditAmount > 0 ? <PromotionalCredit me={me} /> : null}
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

/** Paid and promotional parts of the balance; promotional credit is spent first. */
function PromotionalCredit({ me }: { me: Pick<Me, 'remainingSpendAmount' | 'promotionalCreditAmount' | 'nextCreditExpiry'> }) {
  // Through whole nano-dollars, so 42.5 - 12.3 does not read 30.199999999999996.
  const paid = Math.round((me.remainingSpendAmount - me.promotionalCreditAmount) * 1e9) / 1e9;
  return (
    <>
      <Text size="sm" c="gray.7">
        {formatMoney(paid)} paid · {formatMoney(me.promotionalCreditAmount)} promotional (used first)
      </Text>
      {me.nextCreditExpiry ? (
        <Text size="sm" c="gray.7">
          Promotional credit expires on {formatGrantLastDay(me.nextCreditExpiry)} (end of day, UTC)
        </Text>
      ) : null}
    </>
  );
}

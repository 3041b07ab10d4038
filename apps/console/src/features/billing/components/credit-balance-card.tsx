import { Button, Card, Group, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { paths } from '../../../config/paths';
import { formatMoney } from '../../../lib/format';
import { useMe } from '../../../lib/me';
import { InvoicesButton } from './invoices-button';

/** The remaining credit (spec §2), with Add credits and Invoices. */
export function CreditBalanceCard() {
  const { data: me } = useMe();
  return (
    <Card withBorder padding="lg">
      <Group justify="space-between" align="flex-end">
        <Stack gap={4}>
          <Text size="sm" c="gray.7">
            Credit balance
          </Text>
          <Text fz={32} fw={700} lh={1.1}>
            {me ? formatMoney(me.remainingSpendAmount) : 'Loading...'}
          </Text>
        </Stack>
        <Group gap="sm">
          <InvoicesButton />
          <Button component={Link} to={paths.addCredits.getHref()}>
            Add credits
          </Button>
        </Group>
      </Group>
    </Card>
  );
}

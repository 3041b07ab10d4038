import { Alert, Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { AutoTopUp } from '@meterway/contracts';
import { useDisclosure } from '@mantine/hooks';
import { formatMoney } from '../../../lib/format';
import { useCan } from '../../../lib/me';
import { loadAutoTopUpFailed, useAutoTopUp } from '../api/get-auto-top-up';
import { cardLabel } from '../card-label';
import { AutoTopUpModal } from './auto-top-up-modal';
import { SaveCardButton } from './save-card-button';

const money = (dollars: number) => formatMoney(dollars, { omitZeroCents: true });

/**
 * The dashboard's auto top-up (issue #22): the rule, this month's charges against the cap, the saved
 * card, why it turned itself off if it did, and why no charge is made while it is on if the cap
 * holds one back (issue #52). Everyone sees it; the roles that manage credit edit it.
 */
export function AutoTopUpCard() {
  const { data: settings, isError } = useAutoTopUp();
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="auto-top-up-title">
      <Stack gap="sm">
        <Group gap="xs">
          <Title order={2} size="h4" id="auto-top-up-title">
            Auto top-up
          </Title>
          {settings && (
            // Mantine's light teal text misses WCAG AA contrast on its own background.
            <Badge color={settings.enabled ? 'teal' : 'gray'} variant="light" c="black">
              {settings.enabled ? 'On' : 'Off'}
            </Badge>
          )}
          {settings?.enabled && settings.heldBackReason && (
            <Badge color="yellow" variant="light" c="black">
              Held back
            </Badge>
          )}
        </Group>
        {settings ? <AutoTopUpDetails settings={settings} /> : <Text c="gray.7">{isError ? loadAutoTopUpFailed : 'Loading...'}</Text>}
      </Stack>
    </Card>
  );
}

function AutoTopUpDetails({ settings }: { settings: AutoTopUp }) {
  const manageCredit = useCan('manageCredit');
  const [editing, { open, close }] = useDisclosure(false);
  const { enabled, thresholdAmount, topUpAmount, monthlyCapAmount, chargedThisMonthAmount, paymentMethod, disabledReason, heldBackReason } = settings;
  return (
    <>
      {disabledReason && (
        <Alert color="red" variant="light" role="alert">
          Auto top-up was turned off: {disabledReason.replace(/[.\s]+$/, '')}. Update the card or turn it on again.
        </Alert>
      )}
      {enabled && heldBackReason && (
        <Alert color="yellow" variant="light" role="status" title="No charge is made">
          {heldBackReason}
        </Alert>
      )}
      <Text>
        When the balance falls below {money(thresholdAmount)}, add {money(topUpAmount)}.
      </Text>
      <Text size="sm" c="gray.7">
        Charged this month: {formatMoney(chargedThisMonthAmount)} of {formatMoney(monthlyCapAmount)} (the monthly cap)
      </Text>
      <Text size="sm">Card: {paymentMethod ? cardLabel(paymentMethod) : 'none saved'}</Text>
      {manageCredit && (
        <Group gap="sm">
          <Button variant="default" onClick={open}>
            Edit auto top-up
          </Button>
          <SaveCardButton variant="default" replace={paymentMethod !== null} />
        </Group>
      )}
      {manageCredit && <AutoTopUpModal opened={editing} onClose={close} settings={settings} />}
    </>
  );
}

import { Anchor, Button, Group, List, Table, Text } from '@mantine/core';
import type { PublishableKey } from '@meterway/contracts';
import { formatDateTime, formatExactMoney, formatMoney, formatSpend } from '../../../lib/format';
import { CopyValueButton } from '../../../components/copy-value-button';
import { ListTable } from '../../../components/list-table';
import { KeyMakerNote } from './key-maker-note';
import { KeyWarnings } from './key-warnings';

/** Spec §9: the table shows a key's first 20 characters. */
export const keyPreviewLength = 20;

export const keyPreview = (value: string) => (value.length > keyPreviewLength ? `${value.slice(0, keyPreviewLength)}...` : value);

type PublishableKeysTableProps = {
  /** Undefined while the list loads. */
  publishableKeys: PublishableKey[] | undefined;
  /** Shown instead of "Loading..." when the list could not be loaded. */
  failure?: string;
  onOpen: (key: PublishableKey) => void;
  /** Shows the key's callers of the last 24 hours. */
  onCallers: (key: PublishableKey) => void;
};

const columns = ['Name', 'Key', 'Budget', 'Current period spend', 'Allowed domains'] as const;

export function PublishableKeysTable({ publishableKeys, failure, onOpen, onCallers }: PublishableKeysTableProps) {
  return (
    <ListTable
      label="Publishable keys"
      columns={columns}
      rows={publishableKeys}
      failure={failure}
      empty="No publishable keys added yet."
      minWidth={800}
      highlightOnHover
      // The domains, the only long free text, take what the other columns leave.
      headerProps={(column) => ({ w: column === 'Allowed domains' ? '100%' : undefined })}
    >
      {(key) => <KeyRow key={key.id} publishableKey={key} onOpen={onOpen} onCallers={onCallers} />}
    </ListTable>
  );
}

/** "30 req/min · $1.00/day per address", with the caps the key has; undefined without either. */
const clientCapsText = ({ requestsPerMinute, spendPerDay }: PublishableKey['perClientLimits']): string | undefined => {
  const caps = [...(requestsPerMinute === null ? [] : [`${requestsPerMinute} req/min`]), ...(spendPerDay === null ? [] : [`${formatMoney(spendPerDay)}/day`])];
  return caps.length > 0 ? `${caps.join(' · ')} per address` : undefined;
};

/** "20 req/min · $0.50/day · $5.00/month per end user", with the caps the key has; undefined without any. */
const endUserCapsText = ({ requestsPerMinute, spendPerDay, spendPerMonth }: PublishableKey['perEndUserLimits']): string | undefined => {
  const caps = [
    ...(requestsPerMinute === null ? [] : [`${requestsPerMinute} req/min`]),
    ...(spendPerDay === null ? [] : [`${formatMoney(spendPerDay)}/day`]),
    ...(spendPerMonth === null ? [] : [`${formatMoney(spendPerMonth)}/month`]),
  ];
  return caps.length > 0 ? `${caps.join(' · ')} per end user` : undefined;
};

/** "Caches answers for 10 min": whole hours or minutes where the seconds make them, else seconds; and whether every end user shares them. */
const responseCacheText = (seconds: number, shared: boolean): string => {
  const time = seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
  return `Caches answers for ${time}${shared ? ', shared across end users' : ''}`;
};

type KeyRowProps = Pick<PublishableKeysTableProps, 'onOpen' | 'onCallers'> & { publishableKey: PublishableKey };

function KeyRow({ publishableKey: key, onOpen, onCallers }: KeyRowProps) {
  const caps = clientCapsText(key.perClientLimits);
  const endUserCaps = endUserCapsText(key.perEndUserLimits);
  return (
    // The whole row opens the key for a mouse; the name is its button for the keyboard.
    <Table.Tr style={{ cursor: 'pointer' }} onClick={() => onOpen(key)}>
      {/* Room for a long name to read as a few words per line rather than one word per line. */}
      <Table.Td miw={180}>
        <Anchor
          component="button"
          type="button"
          fw={600}
          ta="left"
          aria-label={`Edit key ${key.name}`}
          onClick={(event) => {
            event.stopPropagation();
            onOpen(key);
          }}
        >
          {key.name}
        </Anchor>
        {/* In the name's cell: the spec's columns stay as they are. */}
        <KeyMakerNote madeBy={key.madeBy} name={key.name} />
        <div>
          <Button
            size="compact-xs"
            variant="subtle"
            px={0}
            aria-label={`Callers of ${key.name}`}
            onClick={(event) => {
              event.stopPropagation();
              onCallers(key);
            }}
          >
            Callers
          </Button>
        </div>
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap">
          <Text ff="monospace" size="sm">
            {keyPreview(key.value)}
          </Text>
          <CopyValueButton value={key.value} label={`Copy key ${key.name}`} />
        </Group>
        {key.previousValueExpiresAt && (
          // Mantine's dimmed grey misses WCAG AA contrast on white.
          <Text size="xs" c="gray.7">{`Previous value works until ${formatDateTime(key.previousValueExpiresAt)}`}</Text>
        )}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        {/* Its own element, so "$10 / month" is found and measured apart from the lines below it. */}
        <div>{`${formatMoney(key.spendLimitAmount, { omitZeroCents: true })} / month`}</div>
        {/* Mantine's dimmed grey misses WCAG AA contrast on white. */}
        <Text size="xs" c="gray.7">{`Worst case if copied today: ${formatMoney(key.worstCaseDailySpend)}`}</Text>
        {/* Without a cap the row's warning says so instead. */}
        {caps && (
          <Text size="xs" c="gray.7">
            {caps}
          </Text>
        )}
        {endUserCaps && (
          <Text size="xs" c="gray.7">
            {endUserCaps}
          </Text>
        )}
        {key.endUserTokens && (
          <Text size="xs" c="gray.7">
            Requires end-user tokens
          </Text>
        )}
        {key.responseCacheSeconds !== null && (
          <Text size="xs" c="gray.7">
            {responseCacheText(key.responseCacheSeconds, key.responseCacheShared)}
          </Text>
        )}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }} title={formatExactMoney(key.currentPeriodSpendAmount)}>
        {`${formatSpend(key.currentPeriodSpendAmount)} spent this month`}
      </Table.Td>
      <Table.Td>
        {key.allowedOrigins.length > 0 && (
          <List size="sm" listStyleType="none">
            {key.allowedOrigins.map((origin) => (
              <List.Item key={origin}>{origin}</List.Item>
            ))}
          </List>
        )}
        <KeyWarnings allowedOrigins={key.allowedOrigins} perClientLimits={key.perClientLimits} />
      </Table.Td>
    </Table.Tr>
  );
}

import { Badge, Button, Group, Table, Text } from '@mantine/core';
import type { SecretKey } from '@meterway/contracts';
import { ListTable } from '../../../components/list-table';
import { formatDateTime, formatExactMoney, formatMoney, formatSpend } from '../../../lib/format';
import { scopeTexts } from '../secret-key-form-schema';
import { KeyMakerNote } from './key-maker-note';

/** A secret key is recognised by its prefix (`sk_live_AbCd…`): its value is never shown again. */
export const secretKeyPreview = (prefix: string) => `${prefix}…`;

export type SecretKeyAction = 'edit' | 'roll' | 'delete';

type SecretKeysTableProps = {
  /** Undefined while the list loads. */
  secretKeys: SecretKey[] | undefined;
  /** Shown instead of "Loading..." when the list could not be loaded. */
  failure?: string;
  onAction: (action: SecretKeyAction, key: SecretKey) => void;
  /** The empty state's button. */
  onCreate: () => void;
};

const columns = ['Name', 'Scope', 'Key', 'Budget', 'Current period spend', 'Actions'] as const;

/** The dashboard's secret keys (issue #23), beside the publishable keys. */
export function SecretKeysTable({ secretKeys, failure, onAction, onCreate }: SecretKeysTableProps) {
  const empty = (
    <>
      <Text>No secret keys yet</Text>
      <Button variant="default" size="xs" mt="xs" onClick={onCreate}>
        Create a secret key
      </Button>
    </>
  );
  return (
    <ListTable label="Secret keys" columns={columns} rows={secretKeys} failure={failure} empty={empty} minWidth={800}>
      {(key) => <SecretKeyRow key={key.id} secretKey={key} onAction={onAction} />}
    </ListTable>
  );
}

function SecretKeyRow({ secretKey: key, onAction }: { secretKey: SecretKey; onAction: SecretKeysTableProps['onAction'] }) {
  const action = (name: SecretKeyAction, label: string, color?: string) => (
    <Button size="compact-sm" variant="default" c={color} aria-label={`${label} secret key ${key.name}`} onClick={() => onAction(name, key)}>
      {label}
    </Button>
  );
  return (
    <Table.Tr>
      <Table.Td miw={160}>
        <Text fw={600}>{key.name}</Text>
        <KeyMakerNote madeBy={key.madeBy} name={key.name} adminScope={key.scope === 'admin'} />
      </Table.Td>
      <Table.Td>
        {/* Dark text on a pale badge: the theme's light badges miss WCAG AA contrast. */}
        <Badge variant="outline" color={key.scope === 'admin' ? 'grape.9' : 'blue.9'} tt="none">
          {scopeTexts[key.scope].label}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Text ff="monospace" size="sm" style={{ whiteSpace: 'nowrap' }}>
          {secretKeyPreview(key.prefix)}
        </Text>
        {key.previousValueExpiresAt && (
          // Mantine's dimmed grey misses WCAG AA contrast on white.
          <Text size="xs" c="gray.7">{`Previous value works until ${formatDateTime(key.previousValueExpiresAt)}`}</Text>
        )}
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <div>{`${formatMoney(key.spendLimitAmount, { omitZeroCents: true })} / month`}</div>
        <Text size="xs" c="gray.7">{`Worst case if leaked today: ${formatMoney(key.worstCaseDailySpend)}`}</Text>
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }} title={formatExactMoney(key.currentPeriodSpendAmount)}>
        {`${formatSpend(key.currentPeriodSpendAmount)} spent this month`}
      </Table.Td>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          {action('edit', 'Edit')}
          {action('roll', 'Roll')}
          {/* red.9: the theme's red.6 on white is 3.3:1, below WCAG AA. */}
          {action('delete', 'Delete', 'red.9')}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

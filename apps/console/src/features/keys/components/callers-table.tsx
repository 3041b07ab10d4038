import { Button, Table, Text, VisuallyHidden } from '@mantine/core';
import { formatMoney } from '../../../lib/format';

const callCount = new Intl.NumberFormat('en-US');

/** One caller of the last 24 hours: a client address or an end user, with its totals. */
export type CallerRow = { caller: string; calls: number; spend: number; blocked: boolean };

export type CallersOrder = 'spend' | 'calls';

type CallersTableProps = {
  /** Names the table and heads its first column, e.g. "Client addresses" / "Client address". */
  label: string;
  callerHeader: string;
  rows: CallerRow[];
  order: CallersOrder;
  /** Shown instead of the table when there are no rows. */
  emptyText: string;
  /** The caller whose block is being sent, if any. */
  blocking?: string;
  onBlock: (caller: string) => void;
};

/** Highest first by the chosen total, then by the other. */
const ordered = (rows: CallerRow[], order: CallersOrder) => {
  const other = order === 'spend' ? 'calls' : 'spend';
  return rows.toSorted((a, b) => b[order] - a[order] || b[other] - a[other]);
};

/** A key's callers of one kind with their calls and spend, each with Block, or Blocked once it is. */
export function CallersTable({ label, callerHeader, rows, order, emptyText, blocking, onBlock }: CallersTableProps) {
  if (rows.length === 0) return <Text size="sm">{emptyText}</Text>;
  return (
    <Table.ScrollContainer minWidth={420}>
      <Table aria-label={label} verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w="100%">{callerHeader}</Table.Th>
            <Table.Th ta="right">Calls</Table.Th>
            <Table.Th ta="right">Spend</Table.Th>
            <Table.Th>
              <VisuallyHidden>Block</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {ordered(rows, order).map((row) => (
            <Table.Tr key={row.caller}>
              <Table.Td ff="monospace" fz="sm" style={{ overflowWrap: 'anywhere' }}>
                {row.caller}
              </Table.Td>
              <Table.Td ta="right">{callCount.format(row.calls)}</Table.Td>
              <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>
                {formatMoney(row.spend)}
              </Table.Td>
              <Table.Td ta="right">
                {row.blocked ? (
                  // Mantine's dimmed grey misses WCAG AA contrast on white.
                  <Text size="sm" c="gray.7">
                    Blocked
                  </Text>
                ) : (
                  <Button
                    size="compact-sm"
                    variant="default"
                    aria-label={`Block ${row.caller}`}
                    loading={blocking === row.caller}
                    disabled={blocking !== undefined && blocking !== row.caller}
                    onClick={() => onBlock(row.caller)}
                  >
                    Block
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

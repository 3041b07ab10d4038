import { Anchor, Text } from '@mantine/core';
import type { CreditHistoryEntry, CreditHistoryKind } from '@meterway/contracts';
import { PagedTable, type PagedTableColumn } from '../../../components/paged-table';
import { useTokenPaging } from '../../../components/pager';
import { formatDateTime, formatMoney } from '../../../lib/format';
import { useCreditHistory } from '../api/get-credit-history';
import { formatGrantLastDay } from '../grant-expiry';

const kindLabels: Record<CreditHistoryKind, string> = {
  top_up: 'Top-up',
  auto_top_up: 'Auto top-up',
  grant: 'Grant',
  grant_expiry: 'Expired grant',
  refund: 'Refund',
  dispute: 'Dispute',
  adjustment: 'Adjustment',
};

/** A won dispute gives credit back: the same kind, a positive amount. */
const kindLabel = (row: CreditHistoryEntry) => (row.kind === 'dispute' && row.amount > 0 ? 'Dispute won' : kindLabels[row.kind]);

const nowrap = { whiteSpace: 'nowrap' } as const;

const columns: readonly PagedTableColumn<CreditHistoryEntry>[] = [
  {
    header: 'Date',
    cell: (row) => (
      <Text size="sm" style={nowrap}>
        {formatDateTime(row.createdAt)}
      </Text>
    ),
  },
  {
    header: 'Kind',
    cell: (row) => (
      <Text size="sm" style={nowrap}>
        {kindLabel(row)}
      </Text>
    ),
  },
  {
    header: 'Amount',
    numeric: true,
    cell: (row) => (
      <Text size="sm" style={nowrap} c={row.amount < 0 ? 'red.8' : undefined}>
        {row.amount > 0 ? '+' : ''}
        {formatMoney(row.amount)}
      </Text>
    ),
  },
  { header: 'Balance after', numeric: true, cell: (row) => formatMoney(row.balanceAfter) },
  {
    header: 'Note',
    cell: (row) => (
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {row.note ?? '—'}
      </Text>
    ),
  },
  // A grant's last day (its line and its expiry's): it expires at the end of that day, UTC.
  {
    header: 'Expires',
    cell: (row) => (
      <Text size="sm" style={nowrap} title={row.expiresAt ? `Expires at ${formatDateTime(row.expiresAt)}` : undefined}>
        {row.expiresAt ? formatGrantLastDay(row.expiresAt) : '—'}
      </Text>
    ),
  },
  {
    header: 'Receipt',
    cell: (row) =>
      row.receiptUrl ? (
        // The provider's page: a new tab, and no window.opener for it.
        <Anchor href={row.receiptUrl} target="_blank" rel="noopener noreferrer" size="sm">
          Receipt
        </Anchor>
      ) : (
        '—'
      ),
  },
];

/** The organisation's credit history, newest first (issue #22). */
export function CreditHistoryTable() {
  const paging = useTokenPaging();
  const query = useCreditHistory(paging.request);
  return (
    <PagedTable
      label="Credit history"
      query={query}
      paging={paging}
      columns={columns}
      rowKey={(row) => row.id}
      emptyText="No credit history yet"
      minWidth={800}
    />
  );
}

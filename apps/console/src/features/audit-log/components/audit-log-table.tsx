import { Stack, Text } from '@mantine/core';
import type { AuditEntry } from '@meterway/contracts';
import { PagedTable, type PagedTableColumn } from '../../../components/paged-table';
import { useTokenPaging } from '../../../components/pager';
import { formatDateTime } from '../../../lib/format';
import { type AuditLogFilters, useAuditLog } from '../api/get-audit-log';
import { actionLabel, changeLines } from '../audit-format';

const columns: readonly PagedTableColumn<AuditEntry>[] = [
  {
    header: 'When',
    cell: (row) => (
      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
        {formatDateTime(row.createdAt)}
      </Text>
    ),
  },
  {
    header: 'Actor',
    cell: (row) => (
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {row.actorEmail}
      </Text>
    ),
  },
  {
    header: 'Action',
    cell: (row) => (
      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
        {actionLabel(row.action)}
      </Text>
    ),
  },
  {
    header: 'Target',
    cell: (row) => (
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {row.target}
      </Text>
    ),
  },
  {
    header: 'Changes',
    cell: (row) => {
      const lines = changeLines(row.changes);
      if (lines.length === 0) return '—';
      return (
        <Stack gap={2}>
          {lines.map((line) => (
            <Text key={line} size="sm" style={{ overflowWrap: 'anywhere' }}>
              {line}
            </Text>
          ))}
        </Stack>
      );
    },
  },
];

/** The organisation's audit log, newest first, one actor's or one action's when the filters say (issue #21). */
export function AuditLogTable(filters: AuditLogFilters) {
  const paging = useTokenPaging();
  const query = useAuditLog({ ...paging.request, ...filters });
  return (
    <PagedTable label="Audit log" query={query} paging={paging} columns={columns} rowKey={(row) => row.id} emptyText="No audit entries found" minWidth={900} />
  );
}

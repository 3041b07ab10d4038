import { Badge, Group, Stack, Text } from '@mantine/core';
import type { Person } from '@meterway/contracts';
import { PagedTable, type PagedTableColumn } from '../../../components/paged-table';
import { idColumn } from '../../../components/id-column';
import { useTokenPaging } from '../../../components/pager';
import { formatDateTime, formatOwed } from '../../../lib/format';
import { usePersons } from '../api/get-persons';
import { noAdminAccessFor } from './no-admin-access';

const columns: readonly PagedTableColumn<Person>[] = [
  idColumn(),
  {
    header: 'Email',
    // An organisation left owing by a refund or dispute is marked beside each of its people.
    cell: (row) =>
      row.owedAmount > 0 ? (
        <Group gap="xs" wrap="nowrap">
          {row.email}
          <Badge color="red" variant="light" title="Owed after a refund or dispute; the organisation's keys are stopped">
            Owes {formatOwed(row.owedAmount)}
          </Badge>
        </Group>
      ) : (
        row.email
      ),
  },
  // Issue #21: every organisation the person belongs to, with their role in it, oldest first.
  {
    header: 'Organisations',
    cell: (row) =>
      row.organizations.length === 0 ? (
        '—'
      ) : (
        <Stack gap={0}>
          {row.organizations.map((organization) => (
            <Text key={organization.organizationId} size="sm" style={{ overflowWrap: 'anywhere' }}>
              {`${organization.organizationName} (${organization.role})`}
            </Text>
          ))}
        </Stack>
      ),
  },
  { header: 'Created at', cell: (row) => formatDateTime(row.createdAt) },
];

/** Every user of every organisation, newest first (system admins only). */
export function PersonsTable() {
  const paging = useTokenPaging();
  const query = usePersons(paging.request);
  return (
    <PagedTable
      label="Users"
      query={query}
      paging={paging}
      columns={columns}
      rowKey={(row) => row.id}
      emptyText="No users found"
      renderError={noAdminAccessFor}
    />
  );
}

import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { Person } from '@meterway/contracts';
import { PagedTable, type PagedTableColumn } from '../../../components/paged-table';
import { idColumn } from '../../../components/id-column';
import { useTokenPaging } from '../../../components/pager';
import { formatDateTime, formatOwed } from '../../../lib/format';
import { usePersons } from '../api/get-persons';
import { GrantCreditModal } from './grant-credit-modal';
import { noAdminAccessFor } from './no-admin-access';

const columnsOf = (onGrant: (person: Person) => void): readonly PagedTableColumn<Person>[] => [
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
  {
    header: 'Actions',
    cell: (row) => (
      <Button size="xs" variant="default" aria-label={`Grant credit to ${row.email}`} onClick={() => onGrant(row)}>
        Grant credit
      </Button>
    ),
  },
];

/** Every user of every organisation, newest first (system admins only), each with Grant credit. */
export function PersonsTable() {
  const paging = useTokenPaging();
  const query = usePersons(paging.request);
  const [grantee, setGrantee] = useState<Person | null>(null);
  const columns = useMemo(() => columnsOf(setGrantee), []);
  return (
    <>
      <PagedTable
        label="Users"
        query={query}
        paging={paging}
        columns={columns}
        rowKey={(row) => row.id}
        emptyText="No users found"
        renderError={noAdminAccessFor}
      />
      <GrantCreditModal person={grantee} onClose={() => setGrantee(null)} />
    </>
  );
}

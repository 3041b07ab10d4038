import { Group, Stack, Text, Title } from '@mantine/core';
import { PageContainer } from '../../components/page-container';
import { AuditLogExportButton } from '../../features/audit-log/components/audit-log-export-button';
import { AuditLogFilters } from '../../features/audit-log/components/audit-log-filters';
import { AuditLogTable } from '../../features/audit-log/components/audit-log-table';
import { useAuditLogParams } from '../../features/audit-log/audit-log-params';
import { useCan } from '../../lib/me';

// Issue #21: who did what in the organisation, and when; owners and admins only.
export function Component() {
  const allowed = useCan('manageMembers');
  const [filters, setFilters] = useAuditLogParams();

  return (
    <PageContainer size="lg">
      <title>Audit log · Meterway</title>
      <Stack gap="md">
        <Group justify="space-between" align="flex-end">
          <Title order={1} fz={24}>
            Audit log
          </Title>
          {allowed && (
            <Group align="flex-end" gap="sm">
              <AuditLogFilters {...filters} onChange={setFilters} />
              <AuditLogExportButton {...filters} />
            </Group>
          )}
        </Group>
        {allowed ? <AuditLogTable {...filters} /> : <Text>Only owners and admins see the audit log of an organisation.</Text>}
      </Stack>
    </PageContainer>
  );
}

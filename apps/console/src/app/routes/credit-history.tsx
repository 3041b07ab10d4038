import { Group, Stack, Text, Title } from '@mantine/core';
import { PageContainer } from '../../components/page-container';
import { CreditHistoryExportButton } from '../../features/billing/components/credit-history-export-button';
import { CreditHistoryTable } from '../../features/billing/components/credit-history-table';
import { useCan } from '../../lib/me';

// Issue #22: what added or took back credit, with the provider's receipts; the roles that manage credit.
export function Component() {
  const allowed = useCan('manageCredit');

  return (
    <PageContainer size="lg">
      <title>Credit history · Meterway</title>
      <Stack gap="md">
        <Group justify="space-between" align="flex-end">
          <Title order={1} fz={24}>
            Credit history
          </Title>
          {allowed && <CreditHistoryExportButton />}
        </Group>
        {allowed ? <CreditHistoryTable /> : <Text>Only owners, admins and billing members see the credit history of an organisation.</Text>}
      </Stack>
    </PageContainer>
  );
}

import { Stack, Title } from '@mantine/core';
import { PageContainer } from '../../components/page-container';
import { ModelsTable } from '../../features/keys/components/models-table';

// Issue #24: what each model costs and its limits, for every member of the organisation.
export function Component() {
  return (
    <PageContainer size="md">
      <title>Models · Meterway</title>
      <Stack gap="xl">
        <Title order={1}>Models</Title>
        <ModelsTable />
      </Stack>
    </PageContainer>
  );
}

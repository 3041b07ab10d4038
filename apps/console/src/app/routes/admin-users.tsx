import { Stack, Title } from '@mantine/core';
import { PageContainer } from '../../components/page-container';
import { AdminBreadcrumbs } from '../../features/admin/components/admin-breadcrumbs';
import { PersonsTable } from '../../features/admin/components/persons-table';

export function Component() {
  return (
    <PageContainer size="md">
      <title>Users · Admin · Meterway</title>
      <Stack gap="md">
        <AdminBreadcrumbs current="Users" />
        <Title order={1} fz={24}>
          Users
        </Title>
        <PersonsTable />
      </Stack>
    </PageContainer>
  );
}

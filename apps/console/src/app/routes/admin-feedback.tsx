import { Stack, Title } from '@mantine/core';
import { PageContainer } from '../../components/page-container';
import { AdminBreadcrumbs } from '../../features/admin/components/admin-breadcrumbs';
import { FeedbackTable } from '../../features/admin/components/feedback-table';

export function Component() {
  return (
    <PageContainer size="md">
      <title>Feedback · Admin · Meterway</title>
      <Stack gap="md">
        <AdminBreadcrumbs current="Feedback" />
        <Title order={1} fz={24}>
          Feedback
        </Title>
        <FeedbackTable />
      </Stack>
    </PageContainer>
  );
}

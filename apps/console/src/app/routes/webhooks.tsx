import { Stack, Text, Title } from '@mantine/core';
import { PageContainer } from '../../components/page-container';
import { WebhooksSection } from '../../features/webhooks/components/webhooks-section';
import { useCan } from '../../lib/me';

// Issue #23: where the organisation's events are sent; owners, admins and developers only.
export function Component() {
  const allowed = useCan('manageWebhooks');
  return (
    <PageContainer size="md">
      <title>Webhooks · Meterway</title>
      <Stack gap="xl">
        <Title order={1}>Webhooks</Title>
        {allowed ? <WebhooksSection /> : <Text>Only owners, admins and developers manage the webhooks of an organisation.</Text>}
      </Stack>
    </PageContainer>
  );
}

import { Stack, Title } from '@mantine/core';
import { PageContainer } from '../../components/page-container';
import { useListParams } from '../../config/list-params';
import { AddCreditsSteps } from '../../features/credits/components/add-credits-steps';

export function Component() {
  const [{ checkoutSessionId }] = useListParams();
  return (
    <PageContainer size="sm">
      <title>Add credits · Meterway</title>
      <Stack gap="xl">
        <Title order={1}>Add credits</Title>
        <AddCreditsSteps checkoutSessionId={checkoutSessionId} />
      </Stack>
    </PageContainer>
  );
}

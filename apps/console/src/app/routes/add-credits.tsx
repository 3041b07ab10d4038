import { Stack, Text, Title } from '@mantine/core';
import { PageContainer } from '../../components/page-container';
import { useListParams } from '../../config/list-params';
import { AddCreditsSteps } from '../../features/credits/components/add-credits-steps';
import { useCan } from '../../lib/me';

export function Component() {
  const [{ checkoutSessionId }] = useListParams();
  const manageCredit = useCan('manageCredit');
  return (
    <PageContainer size="sm">
      <title>Add credits · Meterway</title>
      <Stack gap="xl">
        <Title order={1}>Add credits</Title>
        {/* Issue #21: the api refuses a checkout to the other roles; a typed-in URL says why instead. */}
        {manageCredit ? <AddCreditsSteps checkoutSessionId={checkoutSessionId} /> : <Text>Only owners, admins and billing members add credits.</Text>}
      </Stack>
    </PageContainer>
  );
}

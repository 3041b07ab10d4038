import { Stack, Text, Title } from '@mantine/core';
import { useLocation, useNavigate } from 'react-router';
import { PageContainer } from '../../components/page-container';
import { paths } from '../../config/paths';
import { useListParams } from '../../config/list-params';
import { CardSetupStatus } from '../../features/auto-top-up/components/card-setup-status';
import { SaveCardButton } from '../../features/auto-top-up/components/save-card-button';
import { setupSessionOf } from '../../features/auto-top-up/setup-session-state';
import { CheckoutStep } from '../../features/credits/components/checkout-step';
import { useCan } from '../../lib/me';

// Issue #22: saving a card for auto top-up. The dashboard's Save a card opens a setup-mode session
// and comes here with it; the add-credits card form takes the card; the provider returns here with
// the session's id, and its outcome leads back to the dashboard.
export function Component() {
  const [{ checkoutSessionId }] = useListParams();
  const session = setupSessionOf(useLocation().state);
  const navigate = useNavigate();
  const manageCredit = useCan('manageCredit');

  let content;
  if (!manageCredit) content = <Text>Only owners, admins and billing members save a card for auto top-up.</Text>;
  else if (checkoutSessionId) content = <CardSetupStatus checkoutSessionId={checkoutSessionId} />;
  else if (session) content = <CheckoutStep session={session} mode="setup" onBack={() => void navigate(paths.dashboard.getHref())} />;
  else {
    // A typed-in or bookmarked address has no session yet.
    content = (
      <Stack gap="md" align="flex-start">
        <Text>Auto top-up charges a saved card when your balance runs low.</Text>
        <SaveCardButton />
      </Stack>
    );
  }

  return (
    <PageContainer size="sm">
      <title>Save a card · Meterway</title>
      <Stack gap="xl">
        <Title order={1}>Save a card for auto top-up</Title>
        {content}
      </Stack>
    </PageContainer>
  );
}

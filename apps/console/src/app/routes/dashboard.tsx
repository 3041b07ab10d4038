import { Stack, Title } from '@mantine/core';
import { type LoaderFunctionArgs, redirect } from 'react-router';
import { PageContainer } from '../../components/page-container';
import { paths } from '../../config/paths';
import { AlertsSection } from '../../features/alerts/components/alerts-section';
import { AutoTopUpCard } from '../../features/auto-top-up/components/auto-top-up-card';
import { CreditBalanceCard } from '../../features/billing/components/credit-balance-card';
import { PublishableKeysSection } from '../../features/keys/components/publishable-keys-section';
import { useCan } from '../../lib/me';

/**
 * Stripe returns from saving a card for auto top-up to /dashboard?checkoutSessionId=… (the api's
 * return_url); the card page follows that session to its outcome and comes back here.
 */
export function loader({ request }: LoaderFunctionArgs) {
  const checkoutSessionId = new URL(request.url).searchParams.get('checkoutSessionId');
  return checkoutSessionId ? redirect(paths.autoTopUpCard.getHref(checkoutSessionId)) : null;
}

// The home screen (spec §2): credit balance with Add credits and Invoices, auto top-up, the keys, then the e-mail
// alerts. Each part shows for the roles that may use it (issue #21); everyone sees the balance.
export function Component() {
  const manageKeys = useCan('manageKeys');
  const manageCredit = useCan('manageCredit');
  return (
    <PageContainer size="md">
      <title>Dashboard · Meterway</title>
      <Stack gap="xl">
        <Title order={1}>Dashboard</Title>
        <CreditBalanceCard />
        <AutoTopUpCard />
        {manageKeys && <PublishableKeysSection />}
        {manageCredit && <AlertsSection />}
      </Stack>
    </PageContainer>
  );
}

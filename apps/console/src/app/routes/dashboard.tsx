import { Stack, Title } from '@mantine/core';
import { PageContainer } from '../../components/page-container';
import { AlertsSection } from '../../features/alerts/components/alerts-section';
import { AutoTopUpCard } from '../../features/auto-top-up/components/auto-top-up-card';
import { CreditBalanceCard } from '../../features/billing/components/credit-balance-card';
import { PublishableKeysSection } from '../../features/keys/components/publishable-keys-section';
import { SecretKeysSection } from '../../features/keys/components/secret-keys-section';
import { useCan } from '../../lib/me';

// The home screen (spec §2): credit balance with Add credits and Invoices, auto top-up, the publishable and the
// secret keys (issue #23), then the e-mail alerts. Each part shows for the roles that may use it (issue #21); everyone sees the balance.
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
        {manageKeys && <SecretKeysSection />}
        {manageCredit && <AlertsSection />}
      </Stack>
    </PageContainer>
  );
}

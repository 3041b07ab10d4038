import { Text } from '@mantine/core';
import { usePaymentConfig } from '../api/get-payment-config';

/**
 * Every screen's reminder (signed in or not) that payments are not real: shown when the sandbox runs in
 * production (SANDBOX_PAYMENTS=allow), where a visitor could otherwise take its credit for paid.
 */
export function TestModeBanner() {
  const config = usePaymentConfig();
  if (!config.data?.testModeEverywhere) return null;
  return (
    <Text role="note" aria-label="Test mode" size="sm" fw={500} ta="center" py={6} px="md" bg="orange.2" c="black">
      Test mode: payments run in the sandbox, which accepts test cards and charges no real money.
    </Text>
  );
}

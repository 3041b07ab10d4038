import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { lazy, Suspense } from 'react';
import type { CheckoutSessionStarted } from '../api/create-checkout-session';
import { usePaymentConfig } from '../api/get-payment-config';
import type { CheckoutMode } from '../checkout-mode';
import { confirmFallbackMessage } from '../confirm-error';
import { SandboxCheckout } from './sandbox-checkout';

const StripeCheckout = lazy(() => import('./stripe-checkout').then((module) => ({ default: module.StripeCheckout })));

type CheckoutStepProps = {
  session: CheckoutSessionStarted;
  /** Back to the amount, to choose another one (or, saving a card, away from the form). */
  onBack: () => void;
  /** `setup` saves a card for auto top-up (issue #22) rather than buying credit. */
  mode?: CheckoutMode;
};

/** The billing form of whichever provider the api runs: Stripe's Elements or the sandbox's test form. */
export function CheckoutStep({ session, onBack, mode = 'payment' }: CheckoutStepProps) {
  const config = usePaymentConfig();

  let checkout;
  if (config.isPending) checkout = <Text>Loading...</Text>;
  // The failure itself is the cache's 'Wooops!' toast.
  else if (!config.data) checkout = null;
  else if (config.data.paymentProvider === 'sandbox') checkout = <SandboxCheckout session={session} mode={mode} />;
  else if (config.data.stripePublishableKey) {
    checkout = (
      <Suspense fallback={<Text>Loading...</Text>}>
        <StripeCheckout publishableKey={config.data.stripePublishableKey} session={session} mode={mode} />
      </Suspense>
    );
  } else {
    // The api only names Stripe with a key; without one there is no form to show.
    checkout = (
      <Alert color="red" variant="light" role="alert">
        {confirmFallbackMessage}
      </Alert>
    );
  }

  return (
    <Stack gap="lg">
      {checkout}
      <Group>
        <Button variant="subtle" onClick={onBack}>
          {mode === 'setup' ? 'Cancel' : 'Change amount'}
        </Button>
      </Group>
    </Stack>
  );
}

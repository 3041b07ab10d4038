// Loaded only when the api names Stripe as the provider, so the sandbox path never downloads
// Stripe's libraries, and /pure never reaches js.stripe.com until loadStripe is called.
import { Alert, Button, Grid, Stack, Text, Title } from '@mantine/core';
import { BillingAddressElement, CheckoutElementsProvider, PaymentElement, useCheckoutElements } from '@stripe/react-stripe-js/checkout';
import { loadStripe } from '@stripe/stripe-js/pure';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { logger } from '../../../lib/logger';
import { useMe } from '../../../lib/me';
import type { CheckoutSessionStarted } from '../api/create-checkout-session';
import { type CheckoutMode, checkoutStatusHref, setupExplanation } from '../checkout-mode';
import { confirmFallbackMessage } from '../confirm-error';
import { CheckoutSummary } from './checkout-summary';

type StripeCheckoutProps = { publishableKey: string; session: CheckoutSessionStarted; mode?: CheckoutMode };

/** Checkout in either mode (issue #22: `setup` saves a card for auto top-up, with the same ui_mode). */
export function StripeCheckout({ publishableKey, session, mode = 'payment' }: StripeCheckoutProps) {
  // The provider refuses a new `stripe` prop, so one load per mounted checkout.
  const [stripe] = useState(() => loadStripe(publishableKey));
  const options = useMemo(() => ({ clientSecret: session.clientSecret }), [session.clientSecret]);
  return (
    // The provider initialises once; a new session needs a new provider.
    <CheckoutElementsProvider key={session.clientSecret} stripe={stripe} options={options}>
      <StripeCheckoutForm checkoutSessionId={session.checkoutSessionId} mode={mode} />
    </CheckoutElementsProvider>
  );
}

function StripeCheckoutForm({ checkoutSessionId, mode }: { checkoutSessionId: string; mode: CheckoutMode }) {
  const result = useCheckoutElements();
  const me = useMe();
  const navigate = useNavigate();
  const [error, setError] = useState<string>();
  const [submitting, setSubmitting] = useState(false);

  if (result.type === 'loading') return <Text>Loading...</Text>;
  if (result.type === 'error') {
    return (
      <Alert color="red" variant="light" role="alert">
        {result.error.message || confirmFallbackMessage}
      </Alert>
    );
  }

  const { checkout } = result;
  const statusHref = checkoutStatusHref(mode, checkoutSessionId);
  const setup = mode === 'setup';

  async function completePurchase() {
    setError(undefined);
    setSubmitting(true);
    try {
      // Stripe needs an e-mail for the receipt; the session has one when the api set the customer.
      const email = checkout.email ? undefined : me.data?.email;
      const outcome = await checkout.confirm({
        returnUrl: new URL(statusHref, window.location.origin).href,
        ...(email ? { email } : {}),
      });
      if (outcome.type === 'error') setError(outcome.error.message || confirmFallbackMessage);
      // Stripe normally leaves for the return URL itself; when it does not, go to the status step.
      else navigate(statusHref);
    } catch (thrown) {
      // An integration mistake throws instead of resolving; its text is meant for developers.
      logger.warn('checkout.confirm failed', thrown);
      setError(confirmFallbackMessage);
    } finally {
      setSubmitting(false);
    }
  }

  const taxReady = checkout.tax.status === 'ready';

  return (
    <Grid gap="xl">
      <Grid.Col span={{ base: 12, sm: 7 }}>
        <Stack gap="md">
          {/* The address is for tax, and a saved card pays no tax until it is charged. */}
          {!setup && (
            <>
              <Title order={2} size="h4">
                Billing address
              </Title>
              <BillingAddressElement />
            </>
          )}
          <Title order={2} size="h4">
            Payment
          </Title>
          <PaymentElement />
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, sm: 5 }}>
        <Stack gap="md">
          <Title order={2} size="h4">
            {setup ? 'Auto top-up' : 'Summary'}
          </Title>
          {setup ? (
            <Text size="sm">{setupExplanation}</Text>
          ) : (
            <CheckoutSummary
              credit={checkout.total.subtotal.amount}
              // Stripe computes tax from the billing address; until then it would read $0.00.
              tax={taxReady ? checkout.total.taxExclusive.amount : 'Calculated after address'}
              total={checkout.total.total.amount}
            />
          )}
          {error && (
            <Alert color="red" variant="light" role="alert">
              {error}
            </Alert>
          )}
          <Button fullWidth loading={submitting} onClick={() => void completePurchase()}>
            {setup ? 'Save card' : 'Complete purchase'}
          </Button>
        </Stack>
      </Grid.Col>
    </Grid>
  );
}

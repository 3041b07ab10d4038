import { Alert, Badge, Button, Grid, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import { useNavigate } from 'react-router';
import { formatMoney } from '../../../lib/format';
import { useConfirmSandboxCheckout } from '../api/confirm-sandbox-checkout';
import type { CheckoutSessionStarted } from '../api/create-checkout-session';
import { useSandboxCheckout } from '../api/get-sandbox-checkout';
import { type CardValues, cardSchema, setupTestCards, testCards } from '../card-schema';
import { type CheckoutMode, checkoutStatusHref, setupExplanation } from '../checkout-mode';
import { confirmErrorFields, confirmErrorMessage } from '../confirm-error';
import { CheckoutSummary } from './checkout-summary';

type SandboxCheckoutProps = {
  session: CheckoutSessionStarted;
  /** `setup` saves a card for auto top-up (issue #22); the session's own mode wins once loaded. */
  mode?: CheckoutMode;
};

/**
 * The sandbox provider's checkout: a test-mode card form; the outcome arrives on the status step.
 * A refused card keeps the person here, in the same session, as Stripe's confirm() does: the
 * reason shows above the button and the field to change is emptied and focused.
 */
export function SandboxCheckout({ session, mode = 'payment' }: SandboxCheckoutProps) {
  const navigate = useNavigate();
  const summary = useSandboxCheckout(session);
  const setup = (summary.data?.mode ?? mode) === 'setup';
  const confirm = useConfirmSandboxCheckout();
  // Controlled, so a field emptied after a refusal stays the same element and can take focus.
  const form = useForm<CardValues>({
    mode: 'controlled',
    initialValues: { cardNumber: '', expiry: '', cvc: '', postalCode: '' },
    validate: schemaResolver(cardSchema, { sync: true }),
  });

  const clearFieldsToFix = (error: unknown) => {
    const fields = confirmErrorFields(error).filter((field): field is keyof CardValues => field in form.getValues());
    // Emptied, not marked red: an error colours the placeholder, which then reads like a wrong entry.
    for (const field of fields) form.setFieldValue(field, '');
    if (fields[0]) form.getInputNode(fields[0])?.focus();
  };

  const submit = form.onSubmit(({ postalCode, ...card }) =>
    confirm.mutate(
      { ...session, ...card, ...(postalCode.trim() ? { postalCode: postalCode.trim() } : {}) },
      { onSuccess: () => navigate(checkoutStatusHref(setup ? 'setup' : 'payment', session.checkoutSessionId)), onError: clearFieldsToFix },
    ),
  );

  const amount = (dollars: number | undefined) => (dollars === undefined ? 'Loading...' : formatMoney(dollars));

  return (
    <form
      noValidate
      onSubmit={(event) => {
        confirm.reset();
        submit(event);
      }}
    >
      <Grid gap="xl">
        <Grid.Col span={{ base: 12, sm: 7 }}>
          <Stack gap="md">
            <Group gap="xs">
              <Title order={2} size="h4">
                Billing
              </Title>
              <Badge color="orange" variant="filled" c="black">
                Test mode
              </Badge>
            </Group>
            <Alert
              color="orange"
              variant="light"
              role="note"
              title="Test mode — no real money is charged"
              // Orange text on the light orange background is below WCAG AA contrast.
              styles={{ title: { color: 'var(--mantine-color-text)' } }}
            >
              {setup ? (
                <>
                  Use the test card {setupTestCards.success} for a card whose charges go through, {setupTestCards.decline} for one whose charges are declined,
                  or {setupTestCards.authentication} for one that asks for authentication (declined when nobody is there).
                </>
              ) : (
                <>
                  Use the test card {testCards.success} for a successful payment, or {testCards.decline} for a declined one.
                </>
              )}{' '}
              Any future expiry date and any 3-digit CVC work.
            </Alert>
            <TextInput label="Card number" placeholder={testCards.success} inputMode="numeric" autoComplete="cc-number" {...form.getInputProps('cardNumber')} />
            <Group grow align="flex-start">
              <TextInput label="Expiry (MM/YY)" placeholder="MM/YY" autoComplete="cc-exp" {...form.getInputProps('expiry')} />
              <TextInput label="CVC" placeholder="123" inputMode="numeric" autoComplete="cc-csc" {...form.getInputProps('cvc')} />
            </Group>
            <TextInput label="Postal code (optional)" autoComplete="postal-code" {...form.getInputProps('postalCode')} />
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
              <CheckoutSummary credit={amount(summary.data?.credit)} tax={amount(summary.data?.tax)} total={amount(summary.data?.total)} />
            )}
            {confirm.isError && (
              <Alert color="red" variant="light" role="alert">
                {confirmErrorMessage(confirm.error)}
              </Alert>
            )}
            <Button type="submit" fullWidth loading={confirm.isPending} disabled={!summary.data}>
              {setup ? 'Save card' : 'Complete purchase'}
            </Button>
            {!setup && (
              <Text size="xs" c="gray.7">
                Your credit is added as soon as the payment goes through.
              </Text>
            )}
          </Stack>
        </Grid.Col>
      </Grid>
    </form>
  );
}

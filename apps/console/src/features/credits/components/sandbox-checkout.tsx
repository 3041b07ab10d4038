import { Alert, Badge, Button, Grid, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import { useNavigate } from 'react-router';
import { paths } from '../../../config/paths';
import { formatMoney } from '../../../lib/format';
import { useConfirmSandboxCheckout } from '../api/confirm-sandbox-checkout';
import type { CheckoutSessionStarted } from '../api/create-checkout-session';
import { useSandboxCheckout } from '../api/get-sandbox-checkout';
import { type CardValues, cardSchema, testCards } from '../card-schema';
import { confirmErrorFields, confirmErrorMessage } from '../confirm-error';
import { CheckoutSummary } from './checkout-summary';

type SandboxCheckoutProps = { session: CheckoutSessionStarted };

/**
 * The sandbox provider's checkout: a test-mode card form; the outcome arrives on the status step.
 * A refused card keeps the person here, in the same session, as Stripe's confirm() does: the
 * reason shows above the button and the field to change is emptied and focused.
 */
export function SandboxCheckout({ session }: SandboxCheckoutProps) {
  const navigate = useNavigate();
  const summary = useSandboxCheckout(session);
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
      { onSuccess: () => navigate(paths.addCredits.getHref(session.checkoutSessionId)), onError: clearFieldsToFix },
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
              Use the test card {testCards.success} for a successful payment, or {testCards.decline} for a declined one. Any future expiry date and any 3-digit
              CVC work.
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
              Summary
            </Title>
            <CheckoutSummary credit={amount(summary.data?.credit)} tax={amount(summary.data?.tax)} total={amount(summary.data?.total)} />
            {confirm.isError && (
              <Alert color="red" variant="light" role="alert">
                {confirmErrorMessage(confirm.error)}
              </Alert>
            )}
            <Button type="submit" fullWidth loading={confirm.isPending} disabled={!summary.data}>
              Complete purchase
            </Button>
            <Text size="xs" c="gray.7">
              Your credit is added as soon as the payment goes through.
            </Text>
          </Stack>
        </Grid.Col>
      </Grid>
    </form>
  );
}

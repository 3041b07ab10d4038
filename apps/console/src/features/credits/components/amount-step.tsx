import { Button, Group, Stack, Text } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import { DollarInput } from '../../../components/dollar-input';
import { type CheckoutSessionStarted, useCreateCheckoutSession } from '../api/create-checkout-session';
import { amountLimits, type AmountValues, amountSchema } from '../amount-schema';

type AmountStepProps = {
  /** Called with the session the api opened for the chosen amount. */
  onStarted: (session: CheckoutSessionStarted) => void;
};

export function AmountStep({ onStarted }: AmountStepProps) {
  const createSession = useCreateCheckoutSession();
  const form = useForm<AmountValues>({
    mode: 'uncontrolled',
    initialValues: { amount: amountLimits.default },
    validate: schemaResolver(amountSchema, { sync: true }),
  });

  const submit = form.onSubmit((values) => createSession.mutate({ amount: Number(values.amount) }, { onSuccess: onStarted }));

  return (
    // noValidate: the messages come from the shared schema, not from the browser.
    <form noValidate onSubmit={submit}>
      <Stack gap="md">
        <Text size="sm">
          Credit pays for your API usage. Choose how much to add, from ${amountLimits.min} to ${amountLimits.max}.
        </Text>
        <DollarInput
          label="Amount"
          min={amountLimits.min}
          max={amountLimits.max}
          allowNegative={false}
          // Out-of-range values stay as typed so the form can say why they are refused.
          clampBehavior="none"
          key={form.key('amount')}
          {...form.getInputProps('amount')}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={createSession.isPending}>
            Continue
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

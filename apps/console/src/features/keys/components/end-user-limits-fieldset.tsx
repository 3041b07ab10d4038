import { Fieldset, NumberInput, Stack, Text } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import type { KeyFormValues } from '../key-form-schema';

// Mantine's dimmed grey misses WCAG AA contrast on white.
const descriptionProps = { c: 'gray.7' } as const;

/** What one end user of the key may do (issue #18): requests per minute, spend per day and per month. */
export function EndUserLimitsFieldset({ form }: { form: UseFormReturnType<KeyFormValues> }) {
  return (
    <Fieldset legend="Limits per end user" p="sm" styles={{ legend: { fontSize: 'var(--mantine-font-size-sm)', fontWeight: 500 } }}>
      <Stack gap="sm">
        <Text size="xs" c="gray.7">
          An end user is the sub of their sign-in token, or a visitor address when the key takes no tokens.
        </Text>
        <NumberInput
          label="Requests per minute per end user"
          description="Empty: no cap"
          descriptionProps={descriptionProps}
          placeholder="No cap"
          allowDecimal={false}
          allowNegative={false}
          {...form.getInputProps('perEndUserLimits.requestsPerMinute')}
        />
        <NumberInput
          label="Spend per day per end user"
          description="Dollars per UTC day. Empty: no cap"
          descriptionProps={descriptionProps}
          placeholder="No cap"
          prefix="$"
          decimalScale={2}
          allowNegative={false}
          {...form.getInputProps('perEndUserLimits.spendPerDay')}
        />
        <NumberInput
          label="Spend per month per end user"
          description="Dollars per calendar month (UTC). Empty: no cap"
          descriptionProps={descriptionProps}
          placeholder="No cap"
          prefix="$"
          decimalScale={2}
          allowNegative={false}
          {...form.getInputProps('perEndUserLimits.spendPerMonth')}
        />
      </Stack>
    </Fieldset>
  );
}

import { Fieldset, Stack, Text } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import type { KeyFormValues } from '../key-form-schema';
import { type KeyKind, keyKindTexts } from '../key-kind';
import { CapInput, fieldsetStyles } from './cap-input';

/** What one end user of the key may do (issue #18): requests per minute, spend per day and per month. */
export function EndUserLimitsFieldset({ form, kind = 'publishable' }: { form: UseFormReturnType<KeyFormValues>; kind?: KeyKind }) {
  return (
    <Fieldset legend="Limits per end user" p="sm" styles={fieldsetStyles}>
      <Stack gap="sm">
        <Text size="xs" c="gray.7">
          {`An end user is the sub of their sign-in token, or a ${keyKindTexts[kind].caller} when the key takes no tokens.`}
        </Text>
        <CapInput label="Requests per minute per end user" unit="requests" {...form.getInputProps('perEndUserLimits.requestsPerMinute')} />
        <CapInput label="Spend per day per end user" unit="dollars" period="UTC day" {...form.getInputProps('perEndUserLimits.spendPerDay')} />
        <CapInput label="Spend per month per end user" unit="dollars" period="calendar month (UTC)" {...form.getInputProps('perEndUserLimits.spendPerMonth')} />
      </Stack>
    </Fieldset>
  );
}

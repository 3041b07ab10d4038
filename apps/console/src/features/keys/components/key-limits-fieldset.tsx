import { Fieldset, MultiSelect, NumberInput, Stack, Text } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { loadPricedModelsFailed, usePricedModels } from '../api/get-priced-models';
import type { KeyFormValues } from '../key-form-schema';

type KeyLimitsFieldsetProps = { form: UseFormReturnType<KeyFormValues> };

// Mantine's dimmed grey misses WCAG AA contrast on white.
const descriptionProps = { c: 'gray.7' } as const;

/** What anyone who copies the key from a page can do with it (issue #18): models, output per call, requests per address. */
export function KeyLimitsFieldset({ form }: KeyLimitsFieldsetProps) {
  const models = usePricedModels();
  const chosen = form.getValues().allowedModels;
  // A chosen model since taken off the price list stays listed, so it can be seen and removed.
  const data = [...new Set([...(models.data ?? []).map((model) => model.id), ...chosen])];

  return (
    <Fieldset legend="Limits for a copied key" p="sm" styles={{ legend: { fontSize: 'var(--mantine-font-size-sm)', fontWeight: 500 } }}>
      <Stack gap="sm">
        <Text size="xs" c="gray.7">
          A publishable key is in your page for anyone to copy; these bound what a copy can do.
        </Text>
        <MultiSelect
          label="Models"
          description={models.isError ? `${loadPricedModelsFailed}: the models chosen stay as they are` : 'None chosen: every priced model'}
          descriptionProps={descriptionProps}
          placeholder={chosen.length === 0 ? 'Every priced model' : undefined}
          data={data}
          searchable
          clearable
          loading={models.isPending}
          nothingFoundMessage={models.isPending ? 'Loading...' : 'No such model'}
          {...form.getInputProps('allowedModels')}
        />
        <NumberInput
          label="Max output tokens per call"
          description="Empty: the model's own maximum"
          descriptionProps={descriptionProps}
          placeholder="The model's maximum"
          allowDecimal={false}
          allowNegative={false}
          {...form.getInputProps('maxOutputTokensPerCall')}
        />
        <NumberInput
          label="Requests per minute per visitor address"
          description="Empty: no cap, so one visitor can use the key's whole budget"
          descriptionProps={descriptionProps}
          placeholder="No cap"
          allowDecimal={false}
          allowNegative={false}
          {...form.getInputProps('requestsPerMinute')}
        />
      </Stack>
    </Fieldset>
  );
}

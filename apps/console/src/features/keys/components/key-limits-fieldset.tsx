import { Fieldset, MultiSelect, NumberInput, Stack, Text } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { formatMoney } from '../../../lib/format';
import { loadPricedModelsFailed, usePricedModels } from '../api/get-priced-models';
import type { KeyFormValues } from '../key-form-schema';
import { type KeyKind, keyKindTexts } from '../key-kind';
import { CapInput, descriptionProps, fieldsetStyles } from './cap-input';

type KeyLimitsFieldsetProps = {
  form: UseFormReturnType<KeyFormValues>;
  /** An existing key's worst case if copied (or leaked) today (dollars); a new key has none yet. */
  worstCaseDailySpend?: number;
  kind?: KeyKind;
};

/**
 * What anyone who copies the key from a page can do with it (issue #18): models, output per call,
 * requests and spend per address; for a secret key (issue #23), what its calls may do.
 */
export function KeyLimitsFieldset({ form, worstCaseDailySpend, kind = 'publishable' }: KeyLimitsFieldsetProps) {
  const texts = keyKindTexts[kind];
  const models = usePricedModels();
  const chosen = form.getValues().allowedModels;
  // A chosen model since taken off the price list stays listed, so it can be seen and removed.
  const data = [...new Set([...(models.data ?? []).map((model) => model.id), ...chosen])];

  return (
    <Fieldset legend={texts.limitsLegend} p="sm" styles={fieldsetStyles}>
      <Stack gap="sm">
        <Text size="xs" c="gray.7">
          {texts.limitsHelp}
        </Text>
        {worstCaseDailySpend !== undefined && (
          <Text size="sm">{`${texts.worstCase}: ${formatMoney(worstCaseDailySpend)}, what the budget has left this month.`}</Text>
        )}
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
        <CapInput label={`Requests per minute per ${texts.caller}`} unit="requests" {...form.getInputProps('requestsPerMinute')} />
        <CapInput label={`Spend per day per ${texts.caller}`} unit="dollars" period="UTC day" {...form.getInputProps('spendPerDay')} />
      </Stack>
    </Fieldset>
  );
}

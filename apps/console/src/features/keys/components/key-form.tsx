import { Button, Group, NumberInput, Stack, Switch, TextInput } from '@mantine/core';
import { schemaResolver, useForm, type UseFormReturnType } from '@mantine/form';
import { maxResponseCacheSeconds } from '@meterway/contracts';
import type { ReactNode } from 'react';
import { DollarInput } from '../../../components/dollar-input';
import { type KeyFormValues, keyFormSchema } from '../key-form-schema';
import type { KeyKind } from '../key-kind';
import { AllowedDomainsField } from './allowed-domains-field';
import { descriptionProps } from './cap-input';
import { EndUserLimitsFieldset } from './end-user-limits-fieldset';
import { EndUserTokensFieldset } from './end-user-tokens-fieldset';
import { KeyLimitsFieldset } from './key-limits-fieldset';

/** The key form's state; controlled, because the suggestions follow what is typed. */
export const useKeyForm = (initialValues: KeyFormValues) => useForm<KeyFormValues>({ initialValues, validate: schemaResolver(keyFormSchema, { sync: true }) });

type KeyFormProps = {
  form: UseFormReturnType<KeyFormValues>;
  /** Called with values the schema accepted. */
  onSubmit: (values: KeyFormValues) => void;
  submitLabel: string;
  submitting: boolean;
  /** Shown at the start of the button row (the edit form's Delete). */
  secondaryAction?: ReactNode;
  /** An existing key's worst case if copied (or leaked) today, shown with its limits. */
  worstCaseDailySpend?: number;
  /** A secret key's form has no allowed domains (issue #23); its texts speak of a server. */
  kind?: KeyKind;
  /** Shown after the name (a secret key's scope). */
  afterName?: ReactNode;
  /** Shown after the limits, above the buttons (the edit form's blocked addresses and end users). */
  children?: ReactNode;
};

/**
 * Name, monthly budget, allowed domains, the limits, the end-user tokens and the response cache of
 * a publishable key (spec §3, §5; issues #18, #24), for create and edit; a secret key's the same
 * without the domains (issue #23).
 */
export function KeyForm({
  form,
  onSubmit,
  submitLabel,
  submitting,
  secondaryAction,
  worstCaseDailySpend,
  kind = 'publishable',
  afterName,
  children,
}: KeyFormProps) {
  return (
    // noValidate: the messages come from the schema, not from the browser.
    <form noValidate onSubmit={form.onSubmit(onSubmit)}>
      <Stack gap="md">
        <TextInput label="Name" placeholder={kind === 'secret' ? 'Backend' : 'Web app'} data-autofocus {...form.getInputProps('name')} />
        {afterName}
        <DollarInput label="Budget" description="Dollars this key may spend per calendar month" {...form.getInputProps('budget')} />
        {kind === 'publishable' && <AllowedDomainsField form={form} />}
        <KeyLimitsFieldset form={form} worstCaseDailySpend={worstCaseDailySpend} kind={kind} />
        <EndUserLimitsFieldset form={form} kind={kind} />
        <EndUserTokensFieldset form={form} kind={kind} />
        <NumberInput
          label="Response cache (seconds)"
          description={`Identical non-streamed requests with this key within this time are answered from the cache and charged nothing. Up to a day (${maxResponseCacheSeconds}). Empty: no cache`}
          descriptionProps={descriptionProps}
          placeholder="No cache"
          allowDecimal={false}
          allowNegative={false}
          {...form.getInputProps('responseCacheSeconds')}
        />
        <Switch
          label="Share cached answers across end users"
          description="Off, each end user is answered only from their own requests. On, one end user may receive the answer another end user's identical request produced, and so learn that someone asked it."
          {...form.getInputProps('responseCacheShared', { type: 'checkbox' })}
        />
        {children}
        <Group justify={secondaryAction ? 'space-between' : 'flex-end'}>
          {secondaryAction}
          <Button type="submit" loading={submitting}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

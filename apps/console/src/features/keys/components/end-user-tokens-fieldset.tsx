import { Code, Fieldset, Stack, Switch, Text, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import type { KeyFormValues } from '../key-form-schema';
import { type KeyKind, keyKindTexts } from '../key-kind';
import { fieldsetStyles } from './cap-input';

/**
 * Whether the key requires a token of the customer's sign-in provider from each end user
 * (issue #18), and which provider: the settings show only while it does.
 */
export function EndUserTokensFieldset({ form, kind = 'publishable' }: { form: UseFormReturnType<KeyFormValues>; kind?: KeyKind }) {
  const required = form.getValues().endUserTokens.required;
  return (
    <Fieldset legend="End-user tokens" p="sm" styles={fieldsetStyles}>
      <Stack gap="sm">
        <Switch label="Require a sign-in token from each end user" {...form.getInputProps('endUserTokens.required', { type: 'checkbox' })} />
        {/* Mantine's dimmed grey misses WCAG AA contrast on white. */}
        <Text size="xs" c="gray.7">
          {keyKindTexts[kind].tokenSender} sends the token in the <Code>Meterway-User-Token</Code> header; its <Code>sub</Code> is the end user. Signed with
          RS256 or ES256.
        </Text>
        {required && (
          <>
            <TextInput label="Issuer" placeholder="https://login.example.com/" {...form.getInputProps('endUserTokens.issuer')} />
            <TextInput label="Audience" placeholder="my-app" {...form.getInputProps('endUserTokens.audience')} />
            <TextInput label="JWKS URL" placeholder="https://login.example.com/.well-known/jwks.json" {...form.getInputProps('endUserTokens.jwksUrl')} />
          </>
        )}
      </Stack>
    </Fieldset>
  );
}

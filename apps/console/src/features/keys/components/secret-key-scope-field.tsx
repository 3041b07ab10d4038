import { Radio, Stack, TextInput } from '@mantine/core';
import { type SecretKeyScope, secretKeyScopes } from '@meterway/contracts';
import { scopeTexts } from '../secret-key-form-schema';
import { descriptionProps } from './cap-input';

type ScopeFieldProps = { value: SecretKeyScope; onChange: (scope: SecretKeyScope) => void };

/** What a new secret key may do (issue #23): call the gateway, or the developer API. Chosen once. */
export function SecretKeyScopeField({ value, onChange }: ScopeFieldProps) {
  return (
    <Radio.Group
      label="Scope"
      description="A key's scope never changes: create another key for the other."
      descriptionProps={descriptionProps}
      value={value}
      onChange={(next) => onChange(next as SecretKeyScope)}
    >
      <Stack gap="xs" mt="xs">
        {secretKeyScopes.map((scope) => (
          <Radio key={scope} value={scope} label={scopeTexts[scope].label} description={scopeTexts[scope].description} />
        ))}
      </Stack>
    </Radio.Group>
  );
}

/** An existing key's scope, read only: a key's scope never changes. */
export function SecretKeyScopeText({ scope }: { scope: SecretKeyScope }) {
  return (
    <TextInput
      label="Scope"
      description="A key's scope never changes: create another key for the other."
      descriptionProps={descriptionProps}
      value={`${scopeTexts[scope].label}: ${scopeTexts[scope].description}`}
      readOnly
      variant="filled"
    />
  );
}

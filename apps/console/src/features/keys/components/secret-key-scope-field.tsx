import { Radio, Stack, TextInput } from '@mantine/core';
import { canMakeAdminKey, type SecretKeyScope, secretKeyScopes } from '@meterway/contracts';
import { useMe } from '../../../lib/me';
import { scopeTexts } from '../secret-key-form-schema';
import { descriptionProps } from './cap-input';

type ScopeFieldProps = { value: SecretKeyScope; onChange: (scope: SecretKeyScope) => void };

const adminNotAllowed = 'Only owners and admins make admin keys: one also reads the credit history.';

/**
 * What a new secret key may do (issue #23): call the gateway, or the developer API. Chosen once.
 * An admin key is offered only to a role allowed all it does (issue #53; the api refuses it too).
 */
export function SecretKeyScopeField({ value, onChange }: ScopeFieldProps) {
  const role = useMe().data?.role;
  const adminAllowed = role !== undefined && canMakeAdminKey(role);
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
          <Radio
            key={scope}
            value={scope}
            label={scopeTexts[scope].label}
            description={scope === 'admin' && !adminAllowed ? `${scopeTexts.admin.description} ${adminNotAllowed}` : scopeTexts[scope].description}
            disabled={scope === 'admin' && !adminAllowed}
          />
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

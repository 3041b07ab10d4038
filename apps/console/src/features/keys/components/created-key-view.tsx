import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import type { PublishableKey } from '@meterway/contracts';
import type { ReactNode } from 'react';
import { CopyValueButton } from './copy-value-button';

type CreatedKeyViewProps = {
  publishableKey: PublishableKey;
  onDone: () => void;
  /** What to say above the value instead of the new key's greeting (a rolled key's). */
  children?: ReactNode;
};

/** Spec §4: after creating, the form gives way to the new key's value, disabled, with a copy button. */
export function CreatedKeyView({ publishableKey, onDone, children }: CreatedKeyViewProps) {
  return (
    <Stack gap="md">
      <Text size="sm">
        {children ?? (
          <>
            Your publishable key <strong>{publishableKey.name}</strong> is ready. Use it from the allowed domains only.
          </>
        )}
      </Text>
      <TextInput
        label="Publishable key"
        value={publishableKey.value}
        disabled
        readOnly
        rightSection={<CopyValueButton value={publishableKey.value} label="Copy publishable key" />}
        // The copy button sits in the right section; without this the disabled input swallows its clicks.
        rightSectionPointerEvents="all"
        // Disabled as the spec says, yet as readable as any text: the value is what the user came for.
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', color: 'var(--mantine-color-text)', opacity: 1 } }}
      />
      <Group justify="flex-end">
        <Button onClick={onDone}>Done</Button>
      </Group>
    </Stack>
  );
}

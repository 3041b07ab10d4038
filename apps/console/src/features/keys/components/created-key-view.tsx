import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import type { ReactNode } from 'react';
import { type KeyKind, keyKindTexts } from '../key-kind';
import { CopyValueButton } from './copy-value-button';

type CreatedKeyViewProps = {
  /** The key just created or rolled: its name and value. */
  shownKey: { name: string; value: string };
  kind?: KeyKind;
  onDone: () => void;
  /** What to say above the value instead of the new key's greeting (a rolled key's). */
  children?: ReactNode;
};

const greeting: Record<KeyKind, (name: string) => ReactNode> = {
  publishable: (name) => (
    <>
      Your publishable key <strong>{name}</strong> is ready. Use it from the allowed domains only.
    </>
  ),
  secret: (name) => (
    <>
      Your secret key <strong>{name}</strong> is ready. Use it from your server only, never in a web page.
    </>
  ),
};

/**
 * Spec §4: after creating, the form gives way to the new key's value, disabled, with a copy button.
 * A secret key's value is shown this once (it is stored as a hash, issue #23), and the view says so.
 */
export function CreatedKeyView({ shownKey, kind = 'publishable', onDone, children }: CreatedKeyViewProps) {
  const { label } = keyKindTexts[kind];
  return (
    <Stack gap="md">
      <Text size="sm">{children ?? greeting[kind](shownKey.name)}</Text>
      <TextInput
        label={label}
        value={shownKey.value}
        disabled
        readOnly
        rightSection={<CopyValueButton value={shownKey.value} label={`Copy ${label.toLowerCase()}`} />}
        // The copy button sits in the right section; without this the disabled input swallows its clicks.
        rightSectionPointerEvents="all"
        // Disabled as the spec says, yet as readable as any text: the value is what the user came for.
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', color: 'var(--mantine-color-text)', opacity: 1 } }}
      />
      {kind === 'secret' && (
        // The page's text on a pale orange, like the keys' warnings: Mantine's light alert colours miss WCAG AA contrast.
        <Text size="sm" bg="orange.0" px="sm" py={6} bdrs="sm" style={{ borderLeft: '3px solid var(--mantine-color-orange-6)' }}>
          <strong>Copy it now:</strong> this value will not be shown again. Meterway keeps only a hash of it; if you lose it, roll the key.
        </Text>
      )}
      <Group justify="flex-end">
        <Button onClick={onDone}>Done</Button>
      </Group>
    </Stack>
  );
}

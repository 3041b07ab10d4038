import { Button, Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { type KeyKind, keyKindTexts } from '../key-kind';
import { ShownOnceNotice, ShownOnceValue } from '../../../components/shown-once-value';

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
      <ShownOnceValue label={label} value={shownKey.value} />
      {kind === 'secret' && (
        <ShownOnceNotice>
          <strong>Copy it now:</strong> this value will not be shown again. Meterway keeps only a hash of it; if you lose it, roll the key.
        </ShownOnceNotice>
      )}
      <Group justify="flex-end">
        <Button onClick={onDone}>Done</Button>
      </Group>
    </Stack>
  );
}

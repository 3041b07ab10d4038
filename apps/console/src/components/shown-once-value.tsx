import { Text, TextInput } from '@mantine/core';
import type { ReactNode } from 'react';
import { CopyValueButton } from './copy-value-button';

type ShownOnceValueProps = {
  /** The field's label, e.g. "Secret key"; the copy button is "Copy <label in lower case>". */
  label: string;
  value: string;
};

/**
 * Spec §4: a new key's value in a disabled field with a copy button; a webhook's signing secret
 * (issue #23) the same way.
 */
export function ShownOnceValue({ label, value }: ShownOnceValueProps) {
  return (
    <TextInput
      label={label}
      value={value}
      disabled
      readOnly
      rightSection={<CopyValueButton value={value} label={`Copy ${label.toLowerCase()}`} />}
      // The copy button sits in the right section; without this the disabled input swallows its clicks.
      rightSectionPointerEvents="all"
      // Disabled as the spec says, yet as readable as any text: the value is what the user came for.
      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', color: 'var(--mantine-color-text)', opacity: 1 } }}
    />
  );
}

/** The warning under a value shown once: the page's text on a pale orange (Mantine's light alert colours miss WCAG AA contrast). */
export function ShownOnceNotice({ children }: { children: ReactNode }) {
  return (
    <Text size="sm" bg="orange.0" px="sm" py={6} bdrs="sm" style={{ borderLeft: '3px solid var(--mantine-color-orange-6)' }}>
      {children}
    </Text>
  );
}

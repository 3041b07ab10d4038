import { Group, type MantineBreakpoint, Text } from '@mantine/core';

/** `wordmarkFrom`: show the word mark only from this breakpoint up (where the room for it is). */
type LogoProps = { size?: number; color?: string; wordmarkFrom?: MantineBreakpoint };

/** The Meterway mark (a meter needle) and word mark. */
export function Logo({ size = 28, color = 'var(--mantine-primary-color-filled)', wordmarkFrom }: LogoProps) {
  return (
    <Group gap={8} wrap="nowrap">
      <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true">
        <rect width="32" height="32" rx="8" fill={color} />
        <path d="M8 21a8 8 0 0 1 16 0" fill="none" stroke="#fff" strokeWidth="2.5" strokeLinecap="round" />
        <path d="M16 21l4.5-6" stroke="#fff" strokeWidth="2.5" strokeLinecap="round" />
        <circle cx="16" cy="21" r="1.8" fill="#fff" />
      </svg>
      <Text component="span" fw={700} fz={size * 0.68} lh={1} c="var(--mantine-color-text)" {...(wordmarkFrom ? { visibleFrom: wordmarkFrom } : {})}>
        Meterway
      </Text>
    </Group>
  );
}

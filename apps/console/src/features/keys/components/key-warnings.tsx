import { Stack, Text } from '@mantine/core';
import type { PublishableKey } from '@meterway/contracts';

const localhostPattern = /^(https?:\/\/)?localhost(:\d+)?\/?$/i;

/** Spec §2: "localhost" or any http(s)://localhost:port entry. */
export const allowsLocalhost = (origins: readonly string[]) => origins.some((origin) => localhostPattern.test(origin.trim()));

export const keyWarningTexts = {
  noOrigins: 'No allowed domains: for security, configure at least one so that only your sites can use this key.',
  localhost: 'localhost is allowed: remove it before going to production.',
  noClientCap: "No per-address cap: anyone who copies this key from your page can use its whole budget. Set a per-visitor limit in the key's limits.",
} as const;

/** A key whose copy one visitor address can spend in full: neither per-address cap is set (issue #18). */
const lacksClientCap = ({ requestsPerMinute, spendPerDay }: PublishableKey['perClientLimits']) => requestsPerMinute === null && spendPerDay === null;

/** The per-row warnings of the keys table (spec §2; the per-address caps: issue #18). */
export function KeyWarnings({ allowedOrigins, perClientLimits }: Pick<PublishableKey, 'allowedOrigins' | 'perClientLimits'>) {
  const warnings = [
    ...(allowedOrigins.length === 0 ? [keyWarningTexts.noOrigins] : []),
    ...(allowsLocalhost(allowedOrigins) ? [keyWarningTexts.localhost] : []),
    ...(lacksClientCap(perClientLimits) ? [keyWarningTexts.noClientCap] : []),
  ];
  if (warnings.length === 0) return null;
  return (
    <Stack gap={4} mt={4}>
      {warnings.map((warning) => (
        // The page's text colour on a pale orange: Mantine's light alert colours miss WCAG AA contrast.
        <Text key={warning} size="xs" bg="orange.0" px={8} py={4} bdrs="sm" style={{ borderLeft: '3px solid var(--mantine-color-orange-6)' }}>
          {warning}
        </Text>
      ))}
    </Stack>
  );
}

import { Group, Stack, Text } from '@mantine/core';
import type { UsageDaily } from '@meterway/contracts';
import { formatCost, formatTokens } from '../usage-format';

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} size="lg">
        {value}
      </Text>
    </Stack>
  );
}

/** The window's totals: spend, calls and tokens in and out. */
export function UsageTotals({ totals }: { totals: UsageDaily['totals'] }) {
  return (
    <Group gap="xl" aria-label="Usage totals" role="group">
      <Figure label="Total spend" value={formatCost(totals.cost)} />
      <Figure label="Calls" value={formatTokens(totals.calls)} />
      <Figure label="Input tokens" value={formatTokens(totals.inputTokens)} />
      <Figure label="Output tokens" value={formatTokens(totals.outputTokens)} />
    </Group>
  );
}

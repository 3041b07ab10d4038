import { Button, Paper, Stack, Text, Title } from '@mantine/core';
import { useUsageDaily } from '../api/get-usage-daily';
import type { UsageKeyFilter } from '../key-filter-params';
import { UsageChart } from './usage-chart';
import { UsageTotals } from './usage-totals';

/** The last 30 UTC days of spend, the organisation's or one key's (publishable or secret): totals above a daily chart. */
export function UsageOverview({ keyFilter }: { keyFilter: UsageKeyFilter }) {
  const query = useUsageDaily(keyFilter);
  const usage = query.data;
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="usage-overview-title">
      <Stack gap="md">
        <Title order={2} size="h4" id="usage-overview-title">
          Daily spend, last 30 days (UTC)
        </Title>
        {usage ? (
          usage.totals.calls === 0 ? (
            <Text c="dimmed">No usage in the last 30 days.</Text>
          ) : (
            <>
              <UsageTotals totals={usage.totals} />
              <UsageChart usage={usage} />
            </>
          )
        ) : query.isError ? (
          // Already logged by the QueryClient (a silent load); the table below still works.
          <Stack align="flex-start" gap="xs">
            <Text>Usage could not be loaded.</Text>
            <Button variant="default" size="xs" onClick={() => void query.refetch()}>
              Try again
            </Button>
          </Stack>
        ) : (
          <Text c="dimmed">Loading usage...</Text>
        )}
      </Stack>
    </Paper>
  );
}

// The chart's stylesheet comes with this screen only, never with /login.
import '@mantine/charts/styles.layer.css';
import { Group, Stack, Title } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { PageContainer } from '../../components/page-container';
import { applyListParams, useListParams } from '../../config/list-params';
import { usePublishableKeys } from '../../features/keys/api/get-publishable-keys';
import { useSecretKeys } from '../../features/keys/api/get-secret-keys';
import { keyFilterQuery, type UsageKeyFilter } from '../../features/usage/key-filter-params';
import { ChatCompletionsTable } from '../../features/usage/components/chat-completions-table';
import { ExportCsvButton } from '../../features/usage/components/export-csv-button';
import { KeyFilter } from '../../features/usage/components/key-filter';
import { UsageOverview } from '../../features/usage/components/usage-overview';
import { useCan } from '../../lib/me';

export function Component() {
  const [params] = useListParams();
  // One key at most: the api refuses both, so a URL naming both keeps the publishable one.
  const keyFilter = keyFilterQuery(params);
  const [, setSearchParams] = useSearchParams();
  // Every role sees the usage; only those who manage keys may list them, to filter by one. The keys
  // come from the keys feature here, in the route: the usage feature does not import another feature.
  const manageKeys = useCan('manageKeys');
  const { data: publishableKeys } = usePublishableKeys({ enabled: manageKeys });
  const { data: secretKeys } = useSecretKeys({ enabled: manageKeys });
  // A page token belongs to one filter, so choosing another key starts the table at page 1.
  const selectKey = ({ publishableKeyId, secretKeyId }: UsageKeyFilter) =>
    setSearchParams((current) => {
      const next = applyListParams(current, { publishableKeyId, secretKeyId, page: undefined });
      next.delete('nextPageToken');
      next.delete('previousPageToken');
      return next;
    });

  return (
    <PageContainer size="lg">
      <title>Chat completions · Meterway</title>
      <Stack gap="md">
        <Group justify="space-between" align="flex-end">
          <Title order={1} fz={24}>
            Chat completions
          </Title>
          <Group align="flex-end" gap="sm">
            {manageKeys && <KeyFilter publishableKeys={publishableKeys} secretKeys={secretKeys} value={keyFilter} onChange={selectKey} />}
            {/* Newest first, as the table lists them. */}
            <ExportCsvButton keyFilter={keyFilter} asc={false} />
          </Group>
        </Group>
        <UsageOverview keyFilter={keyFilter} />
        <ChatCompletionsTable keyFilter={keyFilter} />
      </Stack>
    </PageContainer>
  );
}

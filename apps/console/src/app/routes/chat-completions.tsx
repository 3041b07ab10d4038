import { Anchor, Group, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { PageContainer } from '../../components/page-container';
import { useListParams } from '../../config/list-params';
import { paths } from '../../config/paths';
import { ChatCompletionsTable } from '../../features/usage/components/chat-completions-table';

export function Component() {
  const [{ publishableKeyId }] = useListParams();
  return (
    <PageContainer size="lg">
      <title>Chat completions · Meterway</title>
      <Stack gap="md">
        <Title order={1} fz={24}>
          Chat completions
        </Title>
        {publishableKeyId && (
          <Group gap="xs">
            <Text size="sm" c="dimmed">
              Showing the calls of one publishable key.
            </Text>
            <Anchor component={Link} to={paths.chatCompletions.getHref()} size="sm">
              Show all
            </Anchor>
          </Group>
        )}
        <ChatCompletionsTable publishableKeyId={publishableKeyId} />
      </Stack>
    </PageContainer>
  );
}

import { Button, Center, Code, Stack, Text, Title } from '@mantine/core';
import { isRouteErrorResponse, useRouteError } from 'react-router';

/** The page for an error no route handled (spec §8). */
export function RouteError() {
  const error = useRouteError();
  const detail = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : error instanceof Error ? error.message : undefined;

  return (
    <Center mih="100dvh" p="md">
      <Stack align="center" gap="sm" maw={520}>
        <Title order={1} fz={24}>
          Unexpected Application Error!
        </Title>
        {detail && <Code>{detail}</Code>}
        <Text c="dimmed" ta="center">
          Something went wrong while showing this page. Reloading usually helps.
        </Text>
        <Button variant="light" onClick={() => window.location.reload()}>
          Reload
        </Button>
      </Stack>
    </Center>
  );
}

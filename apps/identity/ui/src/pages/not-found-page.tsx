import { AuthCard } from '@meterway/ui-kit';
import { Button, Text } from '@mantine/core';

/** Any other /ui/* path, e.g. a link to a flow this deployment shows in the console instead. */
export function NotFoundPage({ consoleUrl }: { consoleUrl: string }) {
  return (
    <AuthCard title="Page not found">
      <title>Page not found · Meterway</title>
      <Text size="sm" c="dimmed" mb="lg">
        There is nothing at this address. Your account and its settings are in the console.
      </Text>
      <Button component="a" href={`${consoleUrl}/dashboard`} fullWidth>
        Go to the console
      </Button>
    </AuthCard>
  );
}

import { Alert, Stack, Text } from '@mantine/core';

type FailureAlertProps = { messages: readonly string[] };

/** The red 'Failure' alert of the auth screens, one line per message the identity service returned. */
export function FailureAlert({ messages }: FailureAlertProps) {
  return (
    <Alert color="red" variant="light" title="Failure">
      <Stack gap={2}>
        {messages.map((message) => (
          <Text key={message} size="sm">
            {message}
          </Text>
        ))}
      </Stack>
    </Alert>
  );
}

import { Alert, Stack, Text } from '@mantine/core';

type FailureAlertProps = {
  messages: readonly string[];
  /** 'Failure' for login, signup and verification; recovery says 'Something went wrong' (spec §8). */
  title?: string;
};

/** The red alert of the auth screens, one line per message the identity service returned. */
export function FailureAlert({ messages, title = 'Failure' }: FailureAlertProps) {
  return (
    <Alert color="red" variant="light" title={title}>
      {messages.length > 0 && (
        <Stack gap={2}>
          {messages.map((message) => (
            <Text key={message} size="sm">
              {message}
            </Text>
          ))}
        </Stack>
      )}
    </Alert>
  );
}

import { Alert, type MantineColor, Stack } from '@mantine/core';
import type { UiText } from '@ory/client-fetch';
import { messageText } from '../lib/message-text';

const colors: Record<string, MantineColor> = { error: 'red', success: 'teal', info: 'blue' };

/** A flow's `ui.messages`: one Alert each, coloured by type (error red, success teal, info blue). */
export function FlowMessages({ messages }: { messages: readonly UiText[] | undefined }) {
  if (!messages?.length) return null;
  return (
    <Stack gap="xs">
      {messages.map((message, index) => (
        <Alert key={`${message.id}-${index}`} color={colors[message.type] ?? 'blue'} variant="light" data-message-id={message.id}>
          {messageText(message)}
        </Alert>
      ))}
    </Stack>
  );
}

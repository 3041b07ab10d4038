import { Anchor, Code, Button, Checkbox, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import { type WebhookEndpoint, type WebhookEventType, webhookEndpointInputSchema, webhookEventTypes } from '@meterway/contracts';
import { useState } from 'react';
import { ShownOnceNotice, ShownOnceValue } from '../../../components/shown-once-value';
import { runtimeConfig } from '../../../config/runtime-config';
import { useCreateWebhookEndpoint } from '../api/create-webhook-endpoint';
import { eventTypeDescriptions } from '../event-types';

type EndpointFormValues = { url: string; events: WebhookEventType[] };

const newEndpointValues = (): EndpointFormValues => ({ url: '', events: [] });

type AddEndpointModalProps = { opened: boolean; onClose: () => void };

/** Add endpoint (issue #23): a URL and the events to send there; then its signing secret, shown this once. */
export function AddEndpointModal({ opened, onClose }: AddEndpointModalProps) {
  // The contract's own rules and messages: the form refuses what the api would.
  const form = useForm<EndpointFormValues>({ initialValues: newEndpointValues(), validate: schemaResolver(webhookEndpointInputSchema, { sync: true }) });
  const createEndpoint = useCreateWebhookEndpoint();
  const [created, setCreated] = useState<WebhookEndpoint>();

  const close = () => {
    onClose();
    // The next Add endpoint starts empty, and the secret shown is gone for good.
    form.setValues(newEndpointValues());
    form.clearErrors();
    setCreated(undefined);
    createEndpoint.reset();
  };

  return (
    <Modal opened={opened} onClose={close} title="Add endpoint" size="lg">
      {created ? (
        <Stack gap="md">
          <Text size="sm">
            Deliveries to <strong>{created.url}</strong> are signed with this secret, in the <Code style={{ whiteSpace: 'nowrap' }}>Meterway-Signature</Code>{' '}
            header.
          </Text>
          <ShownOnceValue label="Signing secret" value={created.secret ?? ''} />
          <ShownOnceNotice>
            <strong>Copy it now:</strong> this secret will not be shown again. Check each delivery's signature with it, as the{' '}
            <Anchor href={`${runtimeConfig().docsUrl}#webhooks`} target="_blank" rel="noopener noreferrer" inherit>
              verification snippet in the docs
            </Anchor>{' '}
            does.
          </ShownOnceNotice>
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        // noValidate: the messages come from the schema, not from the browser.
        <form
          noValidate
          onSubmit={form.onSubmit((values) => createEndpoint.mutate({ url: values.url.trim(), events: values.events }, { onSuccess: setCreated }))}
        >
          <Stack gap="md">
            <TextInput label="URL" placeholder="https://example.com/meterway/webhooks" data-autofocus {...form.getInputProps('url')} />
            <Checkbox.Group label="Events" description="Which events to send to this endpoint" {...form.getInputProps('events')}>
              <Stack gap="sm" mt="xs">
                {webhookEventTypes.map((type) => (
                  <Checkbox key={type} value={type} label={<code>{type}</code>} description={eventTypeDescriptions[type]} />
                ))}
              </Stack>
            </Checkbox.Group>
            <Group justify="flex-end">
              <Button variant="default" onClick={close} disabled={createEndpoint.isPending}>
                Cancel
              </Button>
              <Button type="submit" loading={createEndpoint.isPending}>
                Add endpoint
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

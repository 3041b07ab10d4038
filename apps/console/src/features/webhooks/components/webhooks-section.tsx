import { Anchor, Code, Button, Group, Stack, Text } from '@mantine/core';
import type { WebhookEndpoint } from '@meterway/contracts';
import { useState } from 'react';
import { ConfirmModal } from '../../../components/confirm-modal';
import { runtimeConfig } from '../../../config/runtime-config';
import { notifySuccess } from '../../../lib/notify';
import { useDeleteWebhookEndpoint } from '../api/delete-webhook-endpoint';
import { loadWebhookEndpointsFailed, useWebhookEndpoints } from '../api/get-webhook-endpoints';
import { AddEndpointModal } from './add-endpoint-modal';
import { DeliveriesModal } from './deliveries-modal';
import { WebhookEndpointsTable } from './webhook-endpoints-table';

/** The webhooks page's body (issue #23): the endpoints, Add endpoint, an endpoint's deliveries and Delete. */
export function WebhooksSection() {
  const { data: endpoints, isError } = useWebhookEndpoints();
  const deleteEndpoint = useDeleteWebhookEndpoint();
  const [adding, setAdding] = useState(false);
  const [viewing, setViewing] = useState<WebhookEndpoint>();
  const [deleting, setDeleting] = useState<WebhookEndpoint>();

  const remove = (endpoint: WebhookEndpoint) =>
    deleteEndpoint.mutate(endpoint.id, {
      onSuccess: () => {
        notifySuccess('Webhook endpoint deleted');
        setDeleting(undefined);
      },
    });

  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end">
        <Text size="sm" maw={640}>
          Meterway POSTs the events you choose to your endpoints, signed in the <Code style={{ whiteSpace: 'nowrap' }}>Meterway-Signature</Code> header, and
          retries a failed delivery for 24 hours. The{' '}
          <Anchor href={`${runtimeConfig().docsUrl}#webhooks`} target="_blank" rel="noopener noreferrer" inherit>
            docs
          </Anchor>{' '}
          show each event&apos;s payload and how to verify a signature.
        </Text>
        <Button onClick={() => setAdding(true)}>Add endpoint</Button>
      </Group>
      <WebhookEndpointsTable
        endpoints={endpoints}
        failure={isError ? loadWebhookEndpointsFailed : undefined}
        onDeliveries={setViewing}
        onDelete={setDeleting}
        onAdd={() => setAdding(true)}
      />
      <AddEndpointModal opened={adding} onClose={() => setAdding(false)} />
      {viewing && <DeliveriesModal key={viewing.id} endpoint={viewing} onClose={() => setViewing(undefined)} />}
      {deleting && (
        <ConfirmModal
          opened
          onClose={() => setDeleting(undefined)}
          title="Delete Webhook Endpoint"
          confirmLabel="Delete"
          confirmColor="red.9"
          loading={deleteEndpoint.isPending}
          onConfirm={() => remove(deleting)}
        >
          {`Are you sure you want to delete the webhook endpoint ${deleting.url}? Its deliveries stop. This action cannot be undone.`}
        </ConfirmModal>
      )}
    </Stack>
  );
}

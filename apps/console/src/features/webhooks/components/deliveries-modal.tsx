import { Badge, Code, List, Modal, Stack, Table, Text } from '@mantine/core';
import type { WebhookDelivery, WebhookEndpoint } from '@meterway/contracts';
import { ListTable } from '../../../components/list-table';
import { formatDateTime } from '../../../lib/format';
import { loadWebhookDeliveriesFailed, useWebhookDeliveries } from '../api/get-webhook-deliveries';

// Filled badges in dark shades: white text on them keeps WCAG AA contrast.
const statusColors: Record<WebhookDelivery['status'], string> = { pending: 'blue.9', succeeded: 'green.9', failed: 'red.9' };
const statusLabels: Record<WebhookDelivery['status'], string> = { pending: 'Pending', succeeded: 'Succeeded', failed: 'Failed' };

/** How many of a delivery's latest attempts are listed. */
const attemptsShown = 3;

const columns = ['Status', 'Event', 'Created', 'Attempts', 'Next attempt', 'Latest attempts'] as const;

/** What one attempt got: the endpoint's HTTP status or why there was none, and how long it took. */
const attemptText = ({ at, statusCode, error, durationMs }: WebhookDelivery['attempts'][number]) =>
  `${formatDateTime(at)}: ${[statusCode === null ? undefined : `HTTP ${statusCode}`, error ?? undefined].filter(Boolean).join(', ') || 'no answer'} (${durationMs} ms)`;

type DeliveriesModalProps = { endpoint: WebhookEndpoint; onClose: () => void };

/** An endpoint's latest deliveries (issue #23): each event's status, its attempts, and when the next is due. */
export function DeliveriesModal({ endpoint, onClose }: DeliveriesModalProps) {
  const { data: deliveries, isError } = useWebhookDeliveries(endpoint.id);
  return (
    <Modal opened onClose={onClose} title="Deliveries" size="70rem">
      <Stack gap="sm">
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          To <Code>{endpoint.url}</Code>, newest first. A delivery that fails is retried with backoff for 24 hours.
        </Text>
        <ListTable
          label="Deliveries"
          columns={columns}
          rows={deliveries}
          failure={isError ? loadWebhookDeliveriesFailed : undefined}
          empty="No deliveries yet"
          minWidth={900}
          verticalSpacing="xs"
        >
          {(delivery) => (
            <Table.Tr key={delivery.id}>
              {/* As wide as its longest status: a narrower cell would cut the badge's label short. */}
              <Table.Td miw={110} w={110}>
                <Badge color={statusColors[delivery.status]} tt="none">
                  {statusLabels[delivery.status]}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Code>{delivery.type}</Code>
              </Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(delivery.createdAt)}</Table.Td>
              <Table.Td ta="right">{delivery.attemptCount}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{delivery.nextAttemptAt ? formatDateTime(delivery.nextAttemptAt) : '—'}</Table.Td>
              <Table.Td>
                {delivery.attempts.length === 0 ? (
                  '—'
                ) : (
                  <List size="xs" listStyleType="none">
                    {delivery.attempts.slice(0, attemptsShown).map((attempt) => (
                      <List.Item key={attempt.at}>{attemptText(attempt)}</List.Item>
                    ))}
                  </List>
                )}
              </Table.Td>
            </Table.Tr>
          )}
        </ListTable>
      </Stack>
    </Modal>
  );
}

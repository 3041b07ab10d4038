import { Anchor, Button, Code, Group, Table, Text } from '@mantine/core';
import type { WebhookEndpoint } from '@meterway/contracts';
import { ListTable } from '../../../components/list-table';
import { formatDateTime } from '../../../lib/format';

type WebhookEndpointsTableProps = {
  /** Undefined while the list loads. */
  endpoints: WebhookEndpoint[] | undefined;
  /** Shown instead of "Loading..." when the list could not be loaded. */
  failure?: string;
  onDeliveries: (endpoint: WebhookEndpoint) => void;
  onDelete: (endpoint: WebhookEndpoint) => void;
  /** The empty state's button. */
  onAdd: () => void;
};

const columns = ['URL', 'Events', 'Created', 'Actions'] as const;

/** The organisation's webhook endpoints (issue #23). */
export function WebhookEndpointsTable({ endpoints, failure, onDeliveries, onDelete, onAdd }: WebhookEndpointsTableProps) {
  const empty = (
    <>
      <Text>No webhook endpoints yet</Text>
      <Button variant="default" size="xs" mt="xs" onClick={onAdd}>
        Add your first endpoint
      </Button>
    </>
  );
  return (
    <ListTable label="Webhook endpoints" columns={columns} rows={endpoints} failure={failure} empty={empty} minWidth={800}>
      {(endpoint) => (
        <Table.Tr key={endpoint.id}>
          <Table.Td style={{ overflowWrap: 'anywhere' }}>
            <Anchor component="button" type="button" ta="left" ff="monospace" size="sm" onClick={() => onDeliveries(endpoint)}>
              {endpoint.url}
            </Anchor>
          </Table.Td>
          <Table.Td>
            <Group gap={4}>
              {endpoint.events.map((event) => (
                <Code key={event}>{event}</Code>
              ))}
            </Group>
          </Table.Td>
          <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatDateTime(endpoint.createdAt)}</Table.Td>
          <Table.Td>
            <Group gap="xs" wrap="nowrap">
              <Button size="compact-sm" variant="default" aria-label={`Deliveries to ${endpoint.url}`} onClick={() => onDeliveries(endpoint)}>
                Deliveries
              </Button>
              {/* red.9: the theme's red.6 on white is 3.3:1, below WCAG AA. */}
              <Button size="compact-sm" variant="default" c="red.9" aria-label={`Delete ${endpoint.url}`} onClick={() => onDelete(endpoint)}>
                Delete
              </Button>
            </Group>
          </Table.Td>
        </Table.Tr>
      )}
    </ListTable>
  );
}

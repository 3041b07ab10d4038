import { Badge, Stack, Text } from '@mantine/core';
import type { ChatCompletion } from '@meterway/contracts';
import { PagedTable, type PagedTableColumn } from '../../../components/paged-table';
import { idColumn } from '../../../components/id-column';
import { useTokenPaging } from '../../../components/pager';
import { useChatCompletions } from '../api/get-chat-completions';
import { formatDateTime } from '../../../lib/format';
import { keyFilterQuery, type UsageKeyFilter } from '../key-filter-params';
import { formatCost, formatTokens } from '../usage-format';

const columns: readonly PagedTableColumn<ChatCompletion>[] = [
  idColumn(),
  {
    header: 'Created at',
    cell: (row) => (
      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
        {formatDateTime(row.createdAt)}
      </Text>
    ),
  },
  { header: 'Model', cell: (row) => row.model },
  // Who called (issue #18): the end user of the key's token, and the caller's /24 or /48, never its full address.
  { header: 'End user', cell: (row) => <OrDash value={row.endUser} /> },
  { header: 'Network', cell: (row) => <OrDash value={row.clientNetwork} /> },
  { header: 'Estimated input tokens', numeric: true, cell: (row) => formatTokens(row.estimatedInputTokens) },
  { header: 'Actual input tokens', numeric: true, cell: (row) => formatTokens(row.inputTokens) },
  { header: 'Estimated input cost', numeric: true, cell: (row) => formatCost(row.estimatedInputCost) },
  { header: 'Actual input cost', numeric: true, cell: (row) => formatCost(row.inputCost) },
  { header: 'Output tokens', numeric: true, cell: (row) => formatTokens(row.outputTokens) },
  { header: 'Output cost', numeric: true, cell: (row) => formatCost(row.outputCost) },
  // The api leaves the total out while a call is still being settled (spec §2: "No data").
  // A cache hit (issue #24) says so beside its total, which is why it cost nothing.
  {
    header: 'Total cost',
    numeric: true,
    cell: (row) =>
      row.totalCost === undefined ? (
        <Text span c="dimmed" size="sm">
          No data
        </Text>
      ) : (
        // The badge under the total: beside it, the narrow column would cut its label.
        <Stack gap={4} align="flex-end">
          <Text span fw={600} size="sm">
            {formatCost(row.totalCost)}
          </Text>
          {row.cacheHit && <CacheHitBadge />}
        </Stack>
      ),
  },
];

function CacheHitBadge() {
  return (
    // Dark text on a pale badge: the theme's light badges miss WCAG AA contrast.
    <Badge
      variant="outline"
      color="teal.9"
      tt="none"
      size="sm"
      title="Answered from the key's response cache: no provider saw the call, and it was charged nothing"
    >
      Cache hit
    </Badge>
  );
}

/** A value, or a dash for none (a key without end-user tokens, a row from before networks were recorded). */
function OrDash({ value }: { value: string | null }) {
  if (value === null) return '—';
  return (
    <Text span ff="monospace" size="xs" style={{ overflowWrap: 'anywhere' }}>
      {value}
    </Text>
  );
}

/** The organisation's metered calls, newest first, optionally one key's (publishable or secret). */
export function ChatCompletionsTable({ keyFilter = {} }: { keyFilter?: UsageKeyFilter }) {
  const paging = useTokenPaging();
  const query = useChatCompletions({ ...paging.request, ...keyFilterQuery(keyFilter) });
  return (
    <PagedTable
      label="Chat completions"
      query={query}
      paging={paging}
      columns={columns}
      rowKey={(row) => row.id}
      emptyText="No chat completions found"
      minWidth={1300}
    />
  );
}

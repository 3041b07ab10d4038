import { Alert, Button, Stack, Table, Text } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { type ReactNode, useEffect } from 'react';
import { isRefusedPageToken, type Pagination, Pager, type TokenPaging } from './pager';

const refusedPageLinkNotice = 'That page link has expired or is invalid; showing the first page.';

export type PagedTableColumn<Row> = {
  header: string;
  cell: (row: Row) => ReactNode;
  /** Right-aligned, for amounts and counts. */
  numeric?: boolean;
};

type PagedTableProps<Row> = {
  /** Names the table for assistive technology, e.g. "Chat completions". */
  label: string;
  query: UseQueryResult<{ items: Row[]; pagination: Pagination }>;
  paging: TokenPaging;
  columns: readonly PagedTableColumn<Row>[];
  rowKey: (row: Row) => string;
  /** Shown instead of the table when the page has no rows, e.g. "No users found". */
  emptyText: string;
  /** Below this width the table scrolls sideways instead of squeezing its columns. */
  minWidth?: number;
  /** What to show for a failure this list knows about (a 403…); undefined falls back to a retry. */
  renderError?: (error: unknown) => ReactNode | undefined;
};

/**
 * One page of a token-paged list (spec §4) with its pager. "Loading..." until the page arrives,
 * the list's empty text for no rows. A failure was already logged by the QueryClient (list loads
 * are silent, spec §8); here it only replaces the table so the page is never blank. A page link
 * the api refuses could never load, so it gives way to page 1 with a notice.
 */
export function PagedTable<Row>(props: PagedTableProps<Row>) {
  const { query, paging } = props;
  const hasToken = Boolean(paging.request.nextPageToken || paging.request.previousPageToken);
  const refused = hasToken && isRefusedPageToken(query.error);
  const { restart } = paging;
  useEffect(() => {
    if (refused) restart();
  }, [refused, restart]);

  return (
    <Stack gap="sm">
      {paging.linkRefused && (
        <Alert color="yellow" variant="light">
          {refusedPageLinkNotice}
        </Alert>
      )}
      {refused ? <Text c="dimmed">Loading...</Text> : <PageOfRows {...props} />}
    </Stack>
  );
}

function PageOfRows<Row>({ label, query, paging, columns, rowKey, emptyText, minWidth = 0, renderError }: PagedTableProps<Row>) {
  const { data } = query;
  if (!data) {
    if (query.isError) return renderError?.(query.error) ?? <LoadFailed onRetry={() => void query.refetch()} />;
    return <Text c="dimmed">Loading...</Text>;
  }

  return (
    <Stack gap="sm">
      {data.items.length === 0 ? (
        <Text c="dimmed">{emptyText}</Text>
      ) : (
        // A table wider than the screen scrolls sideways: its region takes the keyboard focus, so it scrolls without a mouse too.
        <Table.ScrollContainer minWidth={minWidth} type="native" tabIndex={0} role="region" aria-label={label}>
          <Table aria-label={label} striped highlightOnHover verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                {columns.map((column) => (
                  <Table.Th key={column.header} ta={column.numeric ? 'right' : undefined}>
                    {column.header}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.items.map((row) => (
                <Table.Tr key={rowKey(row)}>
                  {columns.map((column) => (
                    <Table.Td key={column.header} ta={column.numeric ? 'right' : undefined}>
                      {column.cell(row)}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Pager paging={paging} pagination={data.pagination} />
    </Stack>
  );
}

function LoadFailed({ onRetry }: { onRetry: () => void }) {
  return (
    <Stack align="flex-start" gap="xs">
      <Text>This list could not be loaded.</Text>
      <Button variant="default" size="xs" onClick={onRetry}>
        Try again
      </Button>
    </Stack>
  );
}

import { Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';

type ListTableProps<Row> = {
  /** Names the table for assistive technology. */
  label: string;
  /** The headers; the first column takes the spare width. */
  columns: readonly string[];
  /** Undefined while the list loads. */
  rows: Row[] | undefined;
  /** Shown instead of "Loading..." when the list could not be loaded. */
  failure?: string;
  /** What an empty list means, e.g. "No pending invitations". */
  emptyText: string;
  renderRow: (row: Row) => ReactNode;
};

/** The members page's tables: one row of text while loading, on a failure or for an empty list. */
export function ListTable<Row>({ label, columns, rows, failure, emptyText, renderRow }: ListTableProps<Row>) {
  const message = rows === undefined ? (failure ?? 'Loading...') : rows.length === 0 ? emptyText : undefined;
  return (
    <Table.ScrollContainer minWidth={rows?.length ? 640 : 0}>
      <Table aria-label={label} highlightOnHover verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            {columns.map((column, index) => (
              <Table.Th key={column} w={index === 0 ? '100%' : undefined}>
                {column}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {message !== undefined ? (
            <Table.Tr>
              <Table.Td colSpan={columns.length}>
                <Text ta="center" py="md">
                  {message}
                </Text>
              </Table.Td>
            </Table.Tr>
          ) : (
            rows?.map(renderRow)
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

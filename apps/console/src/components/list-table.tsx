import { type MantineSpacing, Table, type TableThProps } from '@mantine/core';
import type { ReactNode } from 'react';

type ListTableProps<Row> = {
  /** The table's accessible name. */
  label: string;
  columns: readonly string[];
  /** Undefined while the list loads. */
  rows: readonly Row[] | undefined;
  /** Shown instead of "Loading..." when the list could not be loaded. */
  failure?: string | undefined;
  /** What an empty list shows. */
  empty: ReactNode;
  /** The width the rows need; a lone message wraps within a narrow screen instead. */
  minWidth: number;
  verticalSpacing?: MantineSpacing;
  highlightOnHover?: boolean;
  /** A column header's own props (its width, its alignment). */
  headerProps?: (column: string) => TableThProps;
  /** One row, a Table.Tr with its key. */
  children: (row: Row) => ReactNode;
};

/** A whole list in a table: its headers, then its rows, or one centred message while it loads, when it failed or when it is empty. */
export function ListTable<Row>({
  label,
  columns,
  rows,
  failure,
  empty,
  minWidth,
  verticalSpacing = 'sm',
  highlightOnHover,
  headerProps,
  children,
}: ListTableProps<Row>) {
  const message = rows === undefined ? (failure ?? 'Loading...') : rows.length === 0 ? empty : undefined;
  return (
    <Table.ScrollContainer minWidth={rows?.length ? minWidth : 0}>
      <Table highlightOnHover={highlightOnHover} verticalSpacing={verticalSpacing} aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column) => (
              <Table.Th key={column} {...headerProps?.(column)}>
                {column}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {message !== undefined || !rows ? (
            <Table.Tr>
              <Table.Td colSpan={columns.length} ta="center" py="md">
                {message}
              </Table.Td>
            </Table.Tr>
          ) : (
            rows.map(children)
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

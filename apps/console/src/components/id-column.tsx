import { Text } from '@mantine/core';
import type { PagedTableColumn } from './paged-table';

/** The first column of a paged list: the row's id in small monospace. */
export function idColumn<Row extends { id: string }>(): PagedTableColumn<Row> {
  return {
    header: 'ID',
    cell: (row) => (
      <Text ff="monospace" size="xs">
        {row.id}
      </Text>
    ),
  };
}

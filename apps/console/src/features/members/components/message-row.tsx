import { Table, Text } from '@mantine/core';

/** A table's one row of text: "Loading...", a failure, or what an empty list means. */
export function MessageRow({ colSpan, children }: { colSpan: number; children: string }) {
  return (
    <Table.Tr>
      <Table.Td colSpan={colSpan}>
        <Text ta="center" py="md">
          {children}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

type CheckoutSummaryProps = {
  credit: ReactNode;
  tax: ReactNode;
  total: ReactNode;
};

/** Spec §2 and §9: the usage credit bought, the provider's estimated tax and the total charged. */
export function CheckoutSummary({ credit, tax, total }: CheckoutSummaryProps) {
  const rows: [string, ReactNode][] = [
    ['Usage credit', credit],
    ['Estimated tax', tax],
  ];
  return (
    <Table aria-label="Order summary" verticalSpacing="xs">
      <Table.Tbody>
        {rows.map(([label, value]) => (
          <Table.Tr key={label}>
            <Table.Th scope="row" fw={400}>
              {label}
            </Table.Th>
            <Table.Td ta="right">{value}</Table.Td>
          </Table.Tr>
        ))}
        <Table.Tr>
          <Table.Th scope="row">Total</Table.Th>
          <Table.Td ta="right" fw={700}>
            {total}
          </Table.Td>
        </Table.Tr>
      </Table.Tbody>
    </Table>
  );
}

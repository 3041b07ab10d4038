import { Stack, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { formatOwed } from '../../../lib/format';
import { useMe } from '../../../lib/me';

type CheckoutSummaryProps = {
  credit: ReactNode;
  tax: ReactNode;
  total: ReactNode;
};

/**
 * Spec §2 and §9: the usage credit bought, the provider's estimated tax and the total charged; and,
 * while the organisation owes, that the credit pays the debt first (before paying, not after).
 */
export function CheckoutSummary({ credit, tax, total }: CheckoutSummaryProps) {
  const owed = useMe().data?.owedAmount ?? 0;
  const rows: [string, ReactNode][] = [
    ['Usage credit', credit],
    ['Estimated tax', tax],
  ];
  return (
    <Stack gap="xs">
      <OrderTable rows={rows} total={total} />
      {owed > 0 && <Text size="sm">{`The first ${formatOwed(owed)} of this credit pays what your organisation owes; the rest is added to your balance.`}</Text>}
    </Stack>
  );
}

function OrderTable({ rows, total }: { rows: [string, ReactNode][]; total: ReactNode }) {
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

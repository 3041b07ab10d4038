import { Anchor, Stack, Table, Text } from '@mantine/core';
import type { PricedModel } from '@meterway/contracts';
import { ListTable } from '../../../components/list-table';
import { runtimeConfig } from '../../../config/runtime-config';
import { formatPrice } from '../../../lib/format';
import { loadPricedModelsFailed, usePriceList } from '../api/get-priced-models';

const columns = ['Model', 'Input / 1M tokens', 'Cached input / 1M tokens', 'Output / 1M tokens', 'Max output tokens', 'Images'] as const;
const numeric = new Set<string>(columns.slice(1, 5));
const tokens = new Intl.NumberFormat('en-US');

/**
 * The Models page's body (issue #24): each priced model with what it costs as charged and its
 * limits, under the price list's version; the same figures /v1/models gives in `x_meterway`.
 */
export function ModelsTable() {
  const { data, isError } = usePriceList();
  return (
    <Stack gap="sm">
      <Text size="sm" maw={720}>
        {data ? <strong>{`Prices as of ${data.priceListVersion}. `}</strong> : null}A price change applies to new calls only: each call keeps the price list
        version it was priced with. Prices are in US dollars per 1 million tokens; cached input is input the provider reports as cached, charged at the input
        price where a model has no cached-input price. The{' '}
        <Anchor href={`${runtimeConfig().docsUrl}#models`} target="_blank" rel="noopener noreferrer" inherit>
          docs
        </Anchor>{' '}
        show how a call is charged and how <code>GET /v1/models</code> gives these prices to your app.
      </Text>
      <ListTable<PricedModel>
        label="Models"
        columns={columns}
        rows={data?.models}
        failure={isError ? loadPricedModelsFailed : undefined}
        empty="No models are priced yet"
        minWidth={760}
        headerProps={(column) => (numeric.has(column) ? { ta: 'right' } : {})}
      >
        {(model) => (
          <Table.Tr key={model.id}>
            <Table.Td>
              <code>{model.id}</code>
            </Table.Td>
            <Table.Td ta="right">{formatPrice(model.inputPerMillion)}</Table.Td>
            <Table.Td ta="right">{model.cachedInputPerMillion === null ? 'Same as input' : formatPrice(model.cachedInputPerMillion)}</Table.Td>
            <Table.Td ta="right">{formatPrice(model.outputPerMillion)}</Table.Td>
            <Table.Td ta="right">{tokens.format(model.maxOutputTokens)}</Table.Td>
            <Table.Td>{model.acceptsImages ? 'Yes' : 'No'}</Table.Td>
          </Table.Tr>
        )}
      </ListTable>
    </Stack>
  );
}

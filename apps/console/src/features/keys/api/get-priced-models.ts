import { type PricedModel, type PriceList, pricedModelListSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/models: the priced models a key may be allowed (issue #18), with the price list's
// version for the Models page (issue #24).

export const getPriceList = (signal?: AbortSignal): Promise<PriceList> => apiRequest('/bff/models', { schema: pricedModelListSchema, signal });

export const loadPricedModelsFailed = 'Failed to load models';

export const priceListQueryOptions = () =>
  queryOptions({
    queryKey: ['priced-models'],
    queryFn: ({ signal }) => getPriceList(signal),
    meta: { errorMessage: loadPricedModelsFailed },
  });

/** The whole answer: the version and its models. */
export const usePriceList = () => useQuery(priceListQueryOptions());

/** The models alone, as the key form lists them. */
export const usePricedModels = () => useQuery({ ...priceListQueryOptions(), select: (list): PricedModel[] => list.models });

import { type PricedModel, pricedModelListSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/models: the priced models a key may be allowed (issue #18).

export const getPricedModels = async (signal?: AbortSignal): Promise<PricedModel[]> =>
  (await apiRequest('/bff/models', { schema: pricedModelListSchema, signal })).models;

export const loadPricedModelsFailed = 'Failed to load models';

export const pricedModelsQueryOptions = () =>
  queryOptions({
    queryKey: ['priced-models'],
    queryFn: ({ signal }) => getPricedModels(signal),
    meta: { errorMessage: loadPricedModelsFailed },
  });

export const usePricedModels = () => useQuery(pricedModelsQueryOptions());

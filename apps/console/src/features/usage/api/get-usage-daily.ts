import { usageDailySchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import type { UsageKeyFilter } from '../key-filter-params';

// GET /bff/usage/daily: spend per UTC day, by model and by key, over the last 30 days, optionally one key's (publishable or secret).

export type UsageDailyRequest = UsageKeyFilter;

export const getUsageDaily = (request: UsageDailyRequest, signal?: AbortSignal) =>
  apiRequest('/bff/usage/daily', { query: request, schema: usageDailySchema, signal });

/** Every window and key; a mutation that changes usage invalidates this. */
export const usageDailyQueryKey = ['usage-daily'] as const;

export const usageDailyQueryOptions = (request: UsageDailyRequest) =>
  queryOptions({
    queryKey: [...usageDailyQueryKey, request],
    queryFn: ({ signal }) => getUsageDaily(request, signal),
    meta: { silent: true, errorMessage: 'Failed to load usage' },
  });

export const useUsageDaily = (request: UsageDailyRequest) => useQuery(usageDailyQueryOptions(request));

import { type AutoTopUp, autoTopUpSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/auto-top-up (every role): the settings, this month's charges, the saved card and why
// auto top-up turned itself off, if it did.

export const getAutoTopUp = (signal?: AbortSignal): Promise<AutoTopUp> => apiRequest('/bff/auto-top-up', { schema: autoTopUpSchema, signal });

export const loadAutoTopUpFailed = 'Failed to load auto top-up';

export const autoTopUpQueryKey = ['auto-top-up'] as const;

export const autoTopUpQueryOptions = () =>
  queryOptions({
    queryKey: autoTopUpQueryKey,
    queryFn: ({ signal }) => getAutoTopUp(signal),
    meta: { errorMessage: loadAutoTopUpFailed },
  });

export const useAutoTopUp = () => useQuery(autoTopUpQueryOptions());

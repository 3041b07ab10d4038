import { type PublishableKey, publishableKeyListSchema } from '@meterway/contracts';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

// GET /bff/publishable-keys (spec §7).

export const getPublishableKeys = async (signal?: AbortSignal): Promise<PublishableKey[]> =>
  (await apiRequest('/bff/publishable-keys', { schema: publishableKeyListSchema, signal })).publishableKeys;

export const loadPublishableKeysFailed = 'Failed to load publishable keys';

export const publishableKeysQueryOptions = () =>
  queryOptions({
    queryKey: ['publishable-keys'],
    queryFn: ({ signal }) => getPublishableKeys(signal),
    meta: { errorMessage: loadPublishableKeysFailed },
  });

export const usePublishableKeys = () => useQuery(publishableKeysQueryOptions());
